"""The project's MRC sender with the student's recovery.py deciding the resend EV and EV
retirement, for simulator checks and for `python -m mrclab.exercises.student_endpoint
--exercise-policy FILE send ...` (the endpoint CLI with that sender, in Mininet hosts)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from mrclab.endpoint.core.ev_pool import Choose, EvPool, EvState
from mrclab.endpoint.core.sender import MrcSender

POLICY_FLAG = "--exercise-policy"
NEEDS = ("resend_ev", "on_loss")


@dataclass(frozen=True)
class Resend:
    avoided: EvState  # the EV the PSN last went on
    chosen: EvState
    had_other: bool  # another usable EV existed at the time


class StudentRecovery:
    """The pool's `EvPolicy` from the student's recovery.py, keeping every resend for the
    checks."""

    def __init__(self, policy: ModuleType) -> None:
        self.policy = policy
        self.resends: list[Resend] = []

    def resend_ev(self, pool: EvPool, choose: Choose, now: float, avoid: EvState) -> EvState:
        chosen = self.policy.resend_ev(choose, now, avoid)
        had_other = any(st.usable and st is not avoid for st in pool.all())
        self.resends.append(Resend(avoid, chosen, had_other))
        return chosen

    def on_loss(self, pool: EvPool, st: EvState) -> bool:
        return self.policy.on_loss(st, pool.retire_after)


def student_sender(policy: ModuleType) -> Callable[..., MrcSender]:
    """Makes the project's MrcSender with the student's recovery deciding (each sender its
    own `StudentRecovery`, in `sender.pool.policy`)."""
    def make(*args, **kwargs) -> MrcSender:
        return MrcSender(*args, **kwargs, ev_policy=StudentRecovery(policy))
    return make


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument(POLICY_FLAG, type=Path, required=True)
    args, rest = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    from mrclab.endpoint.cli import main as endpoint_main
    from mrclab.exercises.student_code import load_student_module
    from mrclab.exercises.worker import CheckFailed

    try:
        policy = load_student_module(args.exercise_policy, NEEDS)
    except CheckFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return endpoint_main(rest, sender_class=student_sender(policy))


if __name__ == "__main__":
    sys.exit(main())
