"""For every exercise the untouched skeleton fails its checker and the solution passes it
(the STF and simulator parts; the fabric parts are in tests/integration). The P4 exercises'
skeletons are made from mrclab/p4src/mrc.p4 (skeleton.py): `run_checks` compiles the made
skeleton with p4emu, as `mrclab exercise check` does, before its checks fail."""

from __future__ import annotations

import time

import pytest

from mrclab.exercises.catalog import ORDER, load_exercise
from mrclab.exercises.results import FAIL, PASS, SKIP
from mrclab.exercises.runner import run_checks
from mrclab.exercises.skeleton import make_skeleton
from mrclab.exercises.workspace import start

EXERCISES = list(ORDER)


@pytest.mark.parametrize("name", EXERCISES)
def test_skeleton_fails_and_solution_passes(name, tmp_path):
    ex = load_exercise(name)
    started = time.monotonic()
    ws = start(ex, tmp_path / "skeleton")
    for f in ex.generated_files:  # the checks run on the made skeleton, not a kept copy
        assert ws.path(f).read_text() == make_skeleton(ex, f)
        assert not (ex.skeleton / f).exists(), f"{name}: skeleton/{f} is made, not kept"
    skeleton = run_checks(ws, fabric=False)  # ExerciseError if it did not compile
    solution = run_checks(start(ex, tmp_path / "solution", solution=True), fabric=False)
    elapsed = time.monotonic() - started
    ran = [r for r in solution.results if r.status != SKIP]
    assert ran and all(r.status == PASS for r in ran), solution.lines()
    assert solution.passed and solution.earned == solution.possible
    assert not skeleton.passed and skeleton.earned < skeleton.possible
    failed = [r for r in skeleton.results if r.status == FAIL]
    assert failed and all(r.hint for r in failed), skeleton.lines()
    # fabric checks are reported as skipped, never silently dropped
    assert [r.name for r in solution.results if r.status == SKIP] == \
        [c.name for c in ex.checks_of("fabric")]
    assert elapsed < 120, f"{name}: {elapsed:.0f} s"
