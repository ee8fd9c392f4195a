"""The exercise catalog: five exercises, each complete, and checker.toml validation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mrclab.exercises.catalog import (
    ORDER,
    ExerciseError,
    exercise_names,
    load_exercise,
    parse_exercise,
)
from mrclab.exercises.results import FAIL, PASS, SKIP, CheckResult, Report
from mrclab.exercises.skeleton import skeleton_text

EXERCISES = ["spray", "source", "trim", "signals", "congestion", "failover", "liveness",
             "endpoint", "planes", "open"]


def test_every_exercise_in_course_order():
    assert exercise_names() == EXERCISES == list(ORDER)


@pytest.mark.parametrize("name", EXERCISES)
def test_exercise_folder_is_complete(name):
    ex = load_exercise(name)
    readme = (ex.folder / "README.md").read_text()
    for heading in ("## Goal", "## Background", "## Tasks", "## Questions", "## Experiment"):
        assert heading in readme, f"{name}/README.md lacks {heading}"
    for f in ex.files:
        skeleton, solution = skeleton_text(ex, f), ex.solution_file(f).read_text()
        assert skeleton != solution
        todos = [int(n) for n in re.findall(r"TODO (\d+):", skeleton)]
        assert sorted(todos) == list(range(1, len(todos) + 1)) and len(todos) >= 2, (name, todos)
        assert "TODO" not in solution
    for check in ex.checks_of("stf"):
        assert (ex.folder / check.stf).is_file(), check.stf
    assert all(c.hint for c in ex.checks)
    assert {c.kind for c in ex.checks} & {"stf", "python"}, "no check that runs without root"


def test_instructor_guide_covers_every_exercise():
    text = (Path(load_exercise("spray").folder.parent) / "INSTRUCTOR.md").read_text()
    for name in EXERCISES:
        assert f"## {name}" in text
    assert "mrclab exercise grade" in text


def test_unknown_exercise_names_the_known_ones():
    with pytest.raises(ExerciseError, match="unknown exercise 'sprya'.*spray, source, trim"):
        load_exercise("sprya")


@pytest.mark.parametrize("text, message", [
    ("files = ['a.p4']\n[[check]]\nname='x'\nkind='magic'\nhint='h'\n", "kind 'magic'"),
    ("files = ['a.p4']\n[[check]]\nname='x'\nkind='stf'\nhint='h'\n", "name an `stf` file"),
    ("files = ['a.p4']\n[[check]]\nname='x'\nkind='python'\nrun='m:f'\n", "name and a hint"),
    ("files = ['a.py']\n", "needs checks"),
    ("files = ['a.p4']\n[[check]]\nname='x'\nkind='stf'\nstf='a.stf'\nhint='h'\n",
     "stf checks need a `program`"),
    ("files = [\n", "checker.toml"),
    ("files = ['a.py']\nsolution_from = { 'b.py' = 'x/b.py' }\n"
     "[[check]]\nname='x'\nkind='python'\nrun='m:f'\nhint='h'\n", "`solution_from` maps"),
    ("files = ['a.p4']\nskeleton_from = { 'a.p4' = 3 }\n"
     "[[check]]\nname='x'\nkind='python'\nrun='m:f'\nhint='h'\n", "`skeleton_from` maps"),
])
def test_malformed_checker_toml_is_one_clear_error(text, message):
    with pytest.raises(ExerciseError, match=re.escape(message)):
        parse_exercise("x", Path("/ex/x"), text)


def test_report_scores_only_checks_that_ran():
    report = Report("spray", [CheckResult("a", PASS, 3), CheckResult("b", FAIL, 2, "d", "look"),
                              CheckResult("c", SKIP, 4, "needs root")])
    assert (report.earned, report.possible, report.passed) == (3, 5, False)
    lines = report.lines()
    assert lines[1] == "[FAIL] b (2 pt) - d" and lines[2].strip() == "hint: look"
    assert lines[-1] == "score spray: 3/5 points (1/2 checks passed), 1 skipped"
    assert not Report("x", [CheckResult("c", SKIP, 4)]).passed  # nothing ran: not a pass
