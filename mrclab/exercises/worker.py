"""`python -m mrclab.exercises.worker`: run checks of one kind in this process and print each
result as a `@@result {json}` line. The runner starts one worker per STF group or per
check, so a hang or a crash (in the student's code or a lab) stays within its time bound."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import signal
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from mrclab.exercises.catalog import Check, ExerciseError, load_exercise
from mrclab.exercises.results import CheckResult, result_for
from mrclab.exercises.workspace import Workspace, open_workspace
from mrclab.places import package_file
from p4emu.cmdline import UsageError, run_main

RESULT_PREFIX = "@@result "

CheckFn = Callable[[Workspace, str], tuple[bool, str]]


class CheckFailed(Exception):
    """A check could not run the student's code (import error, exception): one line."""


def resolve(run: str) -> CheckFn:
    module, _, name = run.partition(":")
    return getattr(importlib.import_module(module), name)


# the project's own code: a student's file is in their workspace, never under it
PROJECT_CODE = str(package_file("")) + "/"


def student_error(exc: BaseException) -> str:
    """One line naming the student's file and line when the error came from there."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith(PROJECT_CODE) and "/site-packages/" not in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}: " if frames else ""
    return f"{where}{type(exc).__name__}: {exc}".splitlines()[0]


def run_one(check: Check, ws: Workspace, target: str) -> CheckResult:
    started = time.monotonic()
    try:
        passed, detail = resolve(check.run)(ws, target)
    except CheckFailed as exc:
        passed, detail = False, str(exc)
    except Exception as exc:  # the student's code raised: a failed check, not a crash
        passed, detail = False, student_error(exc)
    return result_for(check, passed, detail, time.monotonic() - started)


def emit(result: CheckResult) -> None:
    print(RESULT_PREFIX + json.dumps(result.to_json()), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mrclab.exercises.worker")
    ap.add_argument("exercise")
    ap.add_argument("folder", type=Path)
    ap.add_argument("--kind", choices=("stf", "python", "fabric"), required=True)
    ap.add_argument("--check", help="the check to run (python, fabric)")
    ap.add_argument("--target", default="p4emu")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # the runner's time bound sends SIGTERM: unwind, so a running lab is torn down
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    return run_main("worker", lambda: _run(args), {UsageError: 2})


def _run(args: argparse.Namespace) -> int:
    try:
        exercise = load_exercise(args.exercise)
        ws = open_workspace(exercise, args.folder.resolve())
    except ExerciseError as exc:  # bad input; one raised by a check is that check's crash
        raise UsageError(str(exc)) from None
    if args.kind == "stf":
        from mrclab.exercises.p4 import run_stf_checks

        for result in run_stf_checks(ws, exercise.checks_of("stf")):
            emit(result)
        return 0
    check = next((c for c in exercise.checks if c.name == args.check), None)
    if check is None:
        raise UsageError(f"{args.exercise} has no check {args.check!r}")
    emit(run_one(check, ws, args.target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
