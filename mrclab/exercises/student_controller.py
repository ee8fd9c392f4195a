"""`python -m mrclab.exercises.student_controller [--exercise-policy FILE] [--exercise-liveness FILE]
[controller options]`: the project's controller with a student's part in place of its own.

`--exercise-policy`: the student's `next_hops()` as the routing function, which the
controller calls at start and after every link event, then rewrites the switches whose
result changed. `--exercise-liveness`: the student's `LinkVerdict` class as each link's
down/up rule from its probes. The rest (probing, the stall proof, diffing, P4Runtime
writes) is the project's."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from p4emu.cmdline import UsageError, run_main

POLICY_FLAG = "--exercise-policy"
LIVENESS_FLAG = "--exercise-liveness"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument(POLICY_FLAG, type=Path)
    ap.add_argument(LIVENESS_FLAG, type=Path)
    args, rest = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    from mrclab.controller.__main__ import main as controller_main
    from mrclab.controller.link_verdict import LinkVerdict
    from mrclab.controller.next_hops import compute_next_hops
    from mrclab.exercises.student_code import load_student_module
    from mrclab.exercises.worker import CheckFailed

    def body() -> int:
        if args.exercise_policy is None and args.exercise_liveness is None:
            raise UsageError(f"give {POLICY_FLAG} or {LIVENESS_FLAG}")
        routing, verdict = compute_next_hops, LinkVerdict
        if args.exercise_policy is not None:
            routing = load_student_module(args.exercise_policy, ("next_hops",)).next_hops
        if args.exercise_liveness is not None:
            verdict = load_student_module(args.exercise_liveness, ("LinkVerdict",)).LinkVerdict
        return controller_main(rest, routing=routing, verdict=verdict)
    return run_main("controller", body, {(UsageError, CheckFailed): 2})


if __name__ == "__main__":
    sys.exit(main())
