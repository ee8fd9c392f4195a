"""Grade a whole class: every sub-folder of SUBMISSIONS is one student's working folder of
the exercise; one CSV row per student (points per check, total, first error)."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from coursework.catalog import Exercise, ExerciseError
from coursework.results import SKIP, Report


def csv_header(exercise: Exercise) -> list[str]:
    return ["student", "earned", "possible", "percent",
            *[c.name for c in exercise.checks], "error"]


def csv_row(exercise: Exercise, student: str, report: Report | None, error: str = "") -> list:
    """A submission's row; with no report (bad folder, program that does not compile) the
    student scores 0 of every point and `error` says why."""
    if report is None:
        possible = sum(c.points for c in exercise.checks)
        return [student, 0, possible, 0.0, *["error"] * len(exercise.checks), error]
    cells = {r.name: (SKIP if r.status == SKIP else r.earned) for r in report.results}
    percent = round(100.0 * report.earned / report.possible, 1) if report.possible else 0.0
    return [student, report.earned, report.possible, percent,
            *[cells.get(c.name, "") for c in exercise.checks], error]


def grade_class(exercise: Exercise, submissions: Path, out: Path, target: str,
                fabric: bool = True, progress: Callable[[str], None] = lambda _l: None
                ) -> list[list]:
    from coursework.runner import run_checks
    from coursework.workspace import open_workspace

    rows = []
    for folder in sorted(p for p in submissions.iterdir() if p.is_dir()):
        try:
            report = run_checks(open_workspace(exercise, folder.resolve()), target, fabric)
            row = csv_row(exercise, folder.name, report)
            progress(f"{folder.name}: {report.score_line()}")
        except ExerciseError as exc:
            row = csv_row(exercise, folder.name, None, str(exc))
            progress(f"{folder.name}: error: {exc}")
        rows.append(row)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(csv_header(exercise))
        writer.writerows(rows)
    return rows
