"""Grade a whole class: every sub-folder of SUBMISSIONS is one student's working folder of
the exercise; one CSV row per student (points per check, total, the steps their failed
checks name, first error). Submissions are checked in parallel, one per core (one at a
time with fabric checks: a machine holds one lab); each check runs in its own worker
process with a time bound, so a submission that hangs or crashes costs only its checks."""

from __future__ import annotations

import csv
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mrclab.exercises.catalog import Exercise, ExerciseError
from mrclab.exercises.mutants import steps_named
from mrclab.exercises.results import FAIL, SKIP, Report


def csv_header(exercise: Exercise) -> list[str]:
    return ["student", "earned", "possible", "percent",
            *[c.name for c in exercise.checks], "failed_steps", "error"]


def failed_steps(report: Report) -> str:
    """The TODOs the hints of the failed checks name, e.g. 'TODO 1, 4'."""
    steps = sorted({s for r in report.results if r.status == FAIL for s in steps_named(r.hint)})
    return f"TODO {', '.join(map(str, steps))}" if steps else ""


def csv_row(exercise: Exercise, student: str, report: Report | None, error: str = "") -> list:
    """A submission's row; with no report (bad folder, program that does not compile) the
    student scores 0 of every point and `error` says why."""
    if report is None:
        possible = sum(c.points for c in exercise.checks)
        return [student, 0, possible, 0.0, *["error"] * len(exercise.checks), "", error]
    cells = {r.name: (SKIP if r.status == SKIP else r.earned) for r in report.results}
    percent = round(100.0 * report.earned / report.possible, 1) if report.possible else 0.0
    return [student, report.earned, report.possible, percent,
            *[cells.get(c.name, "") for c in exercise.checks], failed_steps(report), error]


def grade_class(exercise: Exercise, submissions: Path, out: Path, target: str,
                fabric: bool = True, progress: Callable[[str], None] = lambda _l: None
                ) -> list[list]:
    from mrclab.exercises.runner import run_checks
    from mrclab.exercises.workspace import open_workspace

    def grade(folder: Path) -> list:
        try:
            report = run_checks(open_workspace(exercise, folder.resolve()), target, fabric)
            progress(f"{folder.name}: {report.score_line()}")
            return csv_row(exercise, folder.name, report)
        except ExerciseError as exc:
            progress(f"{folder.name}: error: {exc}")
            return csv_row(exercise, folder.name, None, str(exc))

    folders = sorted(p for p in submissions.iterdir() if p.is_dir())
    workers = 1 if fabric and exercise.checks_of("fabric") else (os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:  # checks run in subprocesses
        rows = list(pool.map(grade, folders))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(csv_header(exercise))
        writer.writerows(rows)
    return rows
