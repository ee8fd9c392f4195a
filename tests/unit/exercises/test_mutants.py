"""Checkers that catch every step: each exercise's mutants (a TODO left out, or a plausible
wrong answer, in the reference solution) lose points in the no-root checks, and a failed
check's hint names the TODO the mutant broke."""

from __future__ import annotations

import argparse
import os
import re
from concurrent.futures import ThreadPoolExecutor

import pytest

from mrclab.exercises.catalog import ORDER, ExerciseError, load_exercise
from mrclab.exercises.mutants import Mutant, load_mutants, mutate, run_mutant, steps_named
from mrclab.exercises.skeleton import skeleton_text

EXERCISES = list(ORDER)


def todo_steps(name: str) -> set[int]:
    ex = load_exercise(name)
    text = "\n".join(skeleton_text(ex, f) for f in ex.files)
    return {int(n) for n in re.findall(r"TODO (\d+):", text)}


@pytest.mark.parametrize("name", EXERCISES)
def test_every_mutant_loses_points_with_a_hint_naming_its_step(name, tmp_path):
    ex = load_exercise(name)
    mutants = load_mutants(ex)
    # at least one mutant per TODO of the skeleton, and none for a TODO it lacks
    assert {m.step for m in mutants} == todo_steps(name)
    missed = []
    # the checks run in worker processes: one mutant per core at a time
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        verdicts = list(pool.map(lambda im: run_mutant(ex, im[1], tmp_path / f"m{im[0]}",
                                                       naming_only=True),
                                 enumerate(mutants)))
    for mutant, verdict in zip(mutants, verdicts, strict=True):
        if not verdict.caught:
            missed.append(f"{mutant.name} (TODO {mutant.step}): {verdict.earned}/"
                          f"{verdict.possible}, failed {list(verdict.failed)}")
    assert not missed, missed


@pytest.mark.parametrize("hint, steps", [
    ("TODO 4: the queue", {4}),
    ("TODOs 1-5: all of it", {1, 2, 3, 4, 5}),
    ("TODOs 2, 3 and 5: some", {2, 3, 5}),
    ("TODO 1/3: either", {1, 3}),
    ("TODOs 1 and 3: the fields and the range", {1, 3}),
    ("ACKs are never trimmed", set()),
])
def test_a_hint_names_the_steps_it_says(hint, steps):
    assert steps_named(hint) == steps


def test_a_mutant_that_applies_nowhere_is_an_error():
    m = Mutant("gone", 1, "mrc.p4", find="truncate(1);", replace="")
    with pytest.raises(ExerciseError, match="occurs 0 times"):
        mutate("apply { }", m)
    twice = Mutant("twice", 1, "mrc.p4", find="x = 1;", replace="")
    with pytest.raises(ExerciseError, match="occurs 2 times"):
        mutate("x = 1; x = 1;", twice)
    # with `after`, the first occurrence after it
    after = Mutant("after", 1, "mrc.p4", find="x = 1;", replace="x = 2;", after="action b")
    assert mutate("action a { x = 1; } action b { x = 1; }", after) == \
        "action a { x = 1; } action b { x = 2; }"


def test_the_instructor_table_comes_from_the_same_run(capsys):
    from mrclab.exercises.cli import run
    from mrclab.exercises.mutants import load_rewrites

    code = run(argparse.Namespace(exercise_command="mutants", names=["failover"]))
    mutants_table, rewrites_table = capsys.readouterr().out.split("\n\n")
    out = mutants_table.splitlines()
    assert code == 0 and out[0].startswith("| exercise | TODO | mutant")
    rows = [line.split(" | ") for line in out[2:]]
    assert len(rows) == len(load_mutants(load_exercise("failover")))
    assert all(r[-1].strip(" |") == "yes" for r in rows)
    out = rewrites_table.splitlines()
    assert out[0].startswith("| exercise | rewrite")
    rows = [line.split(" | ") for line in out[2:]]
    assert len(rows) == len(load_rewrites(load_exercise("failover")))
    assert all(r[-1].strip(" |") == "yes" for r in rows)


def test_grading_a_class_of_thirty_names_each_student_s_failed_steps(tmp_path):
    """Solutions, skeletons and mutants mixed, graded in parallel: the CSV gives the
    solutions full marks and names, for each mutant, the step it broke."""
    import csv

    from mrclab.exercises.grading import grade_class
    from mrclab.exercises.workspace import start

    ex = load_exercise("spray")
    mutants = load_mutants(ex)
    expected: dict[str, int | None] = {}  # student -> the step their mutant broke
    for i in range(30):
        folder = tmp_path / "class" / f"s{i:02d}"
        if i % 3 == 0:
            start(ex, folder, solution=True)
            expected[folder.name] = None
        elif i % 3 == 1:
            start(ex, folder)
            expected[folder.name] = 0
        else:
            mutant = mutants[i // 3 % len(mutants)]
            start(ex, folder, solution=True)
            path = folder / mutant.file
            path.write_text(mutate(path.read_text(), mutant))
            expected[folder.name] = mutant.step
    out = tmp_path / "scores.csv"
    grade_class(ex, tmp_path / "class", out, "p4emu", fabric=False)
    rows = {r["student"]: r for r in csv.DictReader(out.open())}
    assert sorted(rows) == sorted(expected)
    for student, step in expected.items():
        row = rows[student]
        if step is None:
            assert row["percent"] == "100.0" and row["failed_steps"] == "", row
        elif step == 0:  # the skeleton: every TODO still to do
            assert int(row["earned"]) < int(row["possible"]) and row["failed_steps"], row
        else:
            assert int(row["earned"]) < int(row["possible"]), row
            assert str(step) in row["failed_steps"].removeprefix("TODO ").split(", "), row
