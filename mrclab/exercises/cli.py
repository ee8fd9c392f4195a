"""`mrclab exercise list | start NAME | check NAME | grade NAME SUBMISSIONS`.

    mrclab exercise list
    mrclab exercise start spray [--dir D] [--solution]
    mrclab exercise check spray [--dir D] [--target p4emu|bmv2] [--no-fabric]
    mrclab exercise grade spray SUBMISSIONS/ [--csv scores.csv] [--target ...] [--no-fabric]

`--dir` defaults to ./NAME. `check` exits 0 when every check that ran passed, 1 when some
failed, 2 for bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from mrclab.exercises.catalog import Exercise, ExerciseError, exercise_names, load_exercise
from p4emu.cmdline import run_main

TARGETS = ("p4emu", "bmv2")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `exercise` and its subcommands on the mrclab parser."""
    ex = sub.add_parser("exercise",
                        help="classroom exercises: list, start, check, grade, mutants")
    cmds = ex.add_subparsers(dest="exercise_command", required=True,
                             metavar="list|start|check|grade|mutants")
    cmds.add_parser("list", help="the exercises, in course order")
    start = cmds.add_parser("start", help="copy an exercise's skeleton into a folder")
    start.add_argument("name")
    start.add_argument("--dir", type=Path, help="working folder (default ./NAME)")
    start.add_argument("--solution", action="store_true",
                       help="copy the solution instead (instructors)")
    for name, helptext in (("check", "run an exercise's checker on a working folder"),
                           ("grade", "check every submission folder, write a CSV of scores")):
        p = cmds.add_parser(name, help=helptext)
        p.add_argument("name")
        if name == "check":
            p.add_argument("--dir", type=Path, help="working folder (default ./NAME)")
        else:
            p.add_argument("submissions", type=Path, help="a folder of students' folders")
            p.add_argument("--csv", type=Path, help="output (default SUBMISSIONS/scores-NAME.csv)")
        p.add_argument("--target", choices=TARGETS, default="p4emu")
        p.add_argument("--no-fabric", action="store_true",
                       help="skip the fabric checks (they need root and take minutes)")
    mutants = cmds.add_parser("mutants", help="instructors: run each exercise's one-step "
                                              "mutants of the solution, print which the "
                                              "checker catches, and its behaviour-keeping "
                                              "rewrites, which must keep full marks (two "
                                              "Markdown tables)")
    mutants.add_argument("names", nargs="*", metavar="NAME", help="default: every exercise")


def _list() -> int:
    for name in exercise_names():
        ex = load_exercise(name)
        points = sum(c.points for c in ex.checks)
        kinds = sorted({c.kind for c in ex.checks})
        print(f"{name:<10} {ex.title} ({ex.minutes} min, {len(ex.checks)} checks, "
              f"{points} points: {', '.join(kinds)})")
    return 0


def _start(args: argparse.Namespace) -> int:
    from mrclab.exercises.workspace import start

    exercise = load_exercise(args.name)
    folder = (args.dir or Path(args.name)).resolve()
    start(exercise, folder, solution=args.solution)
    print(f"{exercise.name}: {'solution' if args.solution else 'skeleton'} in {folder}; "
          f"read {exercise.folder / 'README.md'}, then: mrclab exercise check "
          f"{exercise.name} --dir {folder}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from mrclab.exercises.results import result_lines
    from mrclab.exercises.runner import run_checks
    from mrclab.exercises.workspace import open_workspace

    exercise = load_exercise(args.name)
    ws = open_workspace(exercise, (args.dir or Path(args.name)).resolve())
    _check_target(args.target)
    print(f"checking {exercise.name} in {ws.folder} on {args.target}", flush=True)
    report = run_checks(ws, args.target, fabric=not args.no_fabric,
                        on_result=lambda r: print("\n".join(result_lines(r)), flush=True))
    print(report.score_line())
    return 0 if report.passed else 1


def _grade(args: argparse.Namespace) -> int:
    from mrclab.exercises.grading import grade_class

    exercise = load_exercise(args.name)
    _check_target(args.target)
    if not args.submissions.is_dir():
        raise ExerciseError(f"{args.submissions} is not a folder of submissions")
    out = args.csv or args.submissions / f"scores-{exercise.name}.csv"
    rows = grade_class(exercise, args.submissions, out, args.target,
                       fabric=not args.no_fabric,
                       progress=lambda line: print(line, flush=True))
    print(f"{len(rows)} submissions graded: {out}")
    return 0


def _each_edit(names: list[str], load: Callable[[Exercise], list], run: Callable,
               prefix: str) -> Iterator[tuple[str, Any, Any]]:
    """(exercise name, edit, `run(exercise, edit, folder)`) of each edit `load` gives for
    each exercise, in order, each in a new folder; as many at once as there are cores (the
    checks run in processes of their own)."""
    import tempfile
    from concurrent.futures import ThreadPoolExecutor
    from functools import partial

    for name in names:
        exercise = load_exercise(name)
        edits = load(exercise)
        with tempfile.TemporaryDirectory(prefix=prefix) as tmp, \
                ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = pool.map(partial(run, exercise), edits,
                               [Path(tmp) / str(i) for i in range(len(edits))])
            for edit, result in zip(edits, results, strict=True):
                yield name, edit, result


def _mutants(args: argparse.Namespace) -> int:
    from mrclab.exercises.mutants import load_mutants, load_rewrites, run_mutant, run_rewrite

    names = args.names or exercise_names()
    print("| exercise | TODO | mutant | points left | checks failed | caught |")
    print("| --- | --- | --- | --- | --- | --- |")
    missed = 0
    for name, mutant, v in _each_edit(names, load_mutants, run_mutant, "mrclab-mutants-"):
        missed += not v.caught
        print(f"| {name} | {mutant.step} | {mutant.name} | {v.earned}/{v.possible} "
              f"| {len(v.failed)} | {'yes' if v.caught else 'NO'} |", flush=True)
    # rewrites that keep the solution's behaviour must keep full marks
    print("\n| exercise | rewrite (behaviour kept) | points | full marks |")
    print("| --- | --- | --- | --- |")
    for name, rewrite, report in _each_edit(names, load_rewrites, run_rewrite,
                                            "mrclab-rewrites-"):
        missed += not report.passed
        print(f"| {name} | {rewrite.name} | {report.earned}/{report.possible} "
              f"| {'yes' if report.passed else 'NO'} |", flush=True)
    return 1 if missed else 0


def _check_target(target: str) -> None:
    if target == "bmv2":
        from mrclab.lab.target import resolve_target

        try:
            resolve_target("bmv2")
        except ValueError as exc:
            raise ExerciseError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    """Dispatch a parsed `mrclab exercise ...`; bad input is one line on stderr, exit 2."""
    commands = {"list": lambda _a: _list(), "start": _start, "check": _check, "grade": _grade,
                "mutants": _mutants}
    # output piped into `head` and the like stops quietly, status 1
    return run_main("mrclab exercise", lambda: commands[args.exercise_command](args),
                    {ExerciseError: 2}, broken_pipe=1)
