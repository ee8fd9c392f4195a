"""The exercises' fabric checks (MRCLAB_TARGET: p4emu or BMv2): the reference solutions
pass them and untouched skeletons fail them, through the same path `mrclab exercise check`
takes (a worker process per check, a fat-tree k=4 per fabric check)."""

from __future__ import annotations

import pytest

from mrclab.exercises.catalog import load_exercise
from mrclab.exercises.results import FAIL, PASS
from mrclab.exercises.runner import run_checks
from mrclab.exercises.workspace import start
from tests.targets import integration_target

pytestmark = pytest.mark.integration
TARGET = integration_target()


def fabric_results(name: str, folder, solution: bool) -> dict[str, object]:
    exercise = load_exercise(name)
    report = run_checks(start(exercise, folder, solution=solution), TARGET)
    fabric = {c.name for c in exercise.checks_of("fabric")}
    results = {r.name: r for r in report.results if r.name in fabric}
    for r in results.values():
        print(f"\n{name} ({'solution' if solution else 'skeleton'}, {TARGET}): "
              f"[{r.status}] {r.name} - {r.detail} ({r.seconds:.0f} s)")
    assert set(results) == fabric
    return results


# every exercise with a fabric check: a lab each (1-2 minutes on 2 cores)
FABRIC_EXERCISES = ["spray", "source", "trim", "signals", "congestion", "failover", "liveness",
                    "endpoint", "planes"]


def test_every_exercise_with_code_has_a_fabric_check_listed_here():
    from mrclab.exercises.catalog import ORDER

    with_fabric = [n for n in ORDER if load_exercise(n).checks_of("fabric")]
    assert with_fabric == FABRIC_EXERCISES


@pytest.mark.parametrize("name", FABRIC_EXERCISES)
def test_solution_passes_the_fabric_checks(name, tmp_path):
    results = fabric_results(name, tmp_path, solution=True)
    assert all(r.status == PASS for r in results.values()), results


@pytest.mark.parametrize("name", ["spray", "trim", "failover"])  # a lab each: kept short
def test_skeleton_fails_the_fabric_checks(name, tmp_path):
    results = fabric_results(name, tmp_path, solution=False)
    assert all(r.status == FAIL and r.hint for r in results.values()), results
    # a failure that was measured, not a lab that did not come up
    assert not any("did not come up" in r.detail or "timed out" in r.detail
                   for r in results.values()), results
