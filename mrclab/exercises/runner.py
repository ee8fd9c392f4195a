"""Run an exercise's checks on a workspace, each group in a worker process with a time
bound, and collect the report."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

from mrclab.exercises.catalog import Check
from mrclab.exercises.p4 import compile_student_program
from mrclab.exercises.results import CheckResult, Report, result_for, skipped
from mrclab.exercises.worker import RESULT_PREFIX
from mrclab.exercises.workspace import Workspace
from mrclab.places import child_env
from mrclab.processes import stop_and_collect

OnResult = Callable[[CheckResult], None]
STOP_GRACE_S = 60.0  # the worker tears its lab down on SIGTERM


def _worker(ws: Workspace, kind: str, target: str, timeout: float,
            check: str | None = None) -> tuple[list[dict], str]:
    """Results the worker printed, and why it gave fewer than expected ('' if it did not)."""
    cmd = [sys.executable, "-m", "mrclab.exercises.worker", ws.exercise.name, str(ws.folder),
           "--kind", kind, "--target", target, *(["--check", check] if check else [])]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=child_env(), start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        problem = ""
    except subprocess.TimeoutExpired:
        out, err = stop_and_collect(proc, STOP_GRACE_S)
        problem = f"timed out after {timeout:.0f} s"
    except KeyboardInterrupt:  # the worker has its own session: Ctrl-C does not reach it
        stop_and_collect(proc, STOP_GRACE_S)
        raise
    results = [json.loads(line[len(RESULT_PREFIX):]) for line in out.splitlines()
               if line.startswith(RESULT_PREFIX)]
    if not problem and proc.returncode != 0:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        problem = f"checker crashed: {lines[-1] if lines else f'exit {proc.returncode}'}"
    return results, problem


def _collect(checks: list[Check], results: list[dict], problem: str) -> list[CheckResult]:
    by_name = {r["name"]: CheckResult(**r) for r in results}
    return [by_name.get(c.name) or result_for(c, False, problem or "no result") for c in checks]


def can_run_fabric() -> str:
    """'' when fabric checks can run here, else why not."""
    from mrclab.lab.lab import cannot_run_here

    return cannot_run_here()


def run_checks(ws: Workspace, target: str = "p4emu", fabric: bool = True,
               on_result: OnResult | None = None) -> Report:
    """Compile the student's program (ExerciseError when it does not), then run the checks."""
    exercise = ws.exercise
    report = Report(exercise.name)

    def add(items: list[CheckResult]) -> None:
        for item in items:
            report.results.append(item)
            if on_result:
                on_result(item)

    if exercise.program:
        compile_student_program(ws, target)
    stf = exercise.checks_of("stf")
    if stf:  # one worker: one compile for the whole group
        add(_collect(stf, *_worker(ws, "stf", target, max(c.timeout for c in stf))))
    for check in exercise.checks_of("python"):
        add(_collect([check], *_worker(ws, "python", target, check.timeout, check.name)))
    no_fabric = "" if fabric else "fabric checks not requested"
    no_fabric = no_fabric or can_run_fabric()
    for check in exercise.checks_of("fabric"):
        if no_fabric:
            add([skipped(check, no_fabric)])
        else:
            add(_collect([check], *_worker(ws, "fabric", target, check.timeout, check.name)))
    return report
