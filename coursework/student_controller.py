"""`python -m coursework.student_controller --exercise-policy FILE [controller options]`:
the project's controller with the student's next_hops() as its routing policy.

The controller calls its routing function `(fabric, down links) -> next hops` at start and
after every link event, then rewrites the switches whose result changed; the student's
`next_hops` is passed as that function, the rest (probing, diffing, P4Runtime writes) is the
project's."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

POLICY_FLAG = "--exercise-policy"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument(POLICY_FLAG, type=Path, required=True)
    args, rest = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    from controller.__main__ import main as controller_main
    from coursework.student_code import load_student_module
    from coursework.worker import CheckFailed

    try:
        policy = load_student_module(args.exercise_policy, ("next_hops",))
    except CheckFailed as exc:
        print(f"controller: {exc}", file=sys.stderr)
        return 2
    return controller_main(rest, routing=policy.next_hops)


if __name__ == "__main__":
    sys.exit(main())
