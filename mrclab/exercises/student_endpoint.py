"""The project's MRC sender with a student's part in place of its own, for simulator checks
and for `python -m mrclab.exercises.student_endpoint [--exercise-policy FILE]
[--exercise-window FILE] [--exercise-planes FILE] send ...` (the endpoint CLI with that
sender, in Mininet hosts): `--exercise-policy`, the endpoint exercise's recovery.py (the
resend EV and EV retirement); `--exercise-window`, the congestion exercise's window.py (its
`Window` class as the congestion window); `--exercise-planes`, the planes exercise's
planes.py (the choice among planes)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from mrclab.endpoint.core.ev_pool import Choose, EvPool, EvState
from mrclab.endpoint.core.sender import MrcSender
from p4emu.cmdline import UsageError, run_main

POLICY_FLAG = "--exercise-policy"
WINDOW_FLAG = "--exercise-window"
PLANES_FLAG = "--exercise-planes"
NEEDS = ("resend_ev", "on_loss")
WINDOW_NEEDS = ("Window",)
PLANES_NEEDS = ("plane_order", "plane_suspect", "trusted_planes")


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


def sender_with(policy: ModuleType | None = None, window: ModuleType | None = None,
                planes: ModuleType | None = None) -> Callable[..., MrcSender]:
    """Makes the project's MrcSender with whichever of the students' parts are given."""
    def make(*args, **kwargs) -> MrcSender:
        if policy is not None:
            kwargs["ev_policy"] = StudentRecovery(policy)
        if window is not None:
            kwargs["window_class"] = window.Window
        if planes is not None:
            kwargs["plane_rules"] = planes
        return MrcSender(*args, **kwargs)
    return make


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument(POLICY_FLAG, type=Path)
    ap.add_argument(WINDOW_FLAG, type=Path)
    ap.add_argument(PLANES_FLAG, type=Path)
    args, rest = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    from mrclab.endpoint.cli import main as endpoint_main
    from mrclab.exercises.student_code import load_student_module
    from mrclab.exercises.worker import CheckFailed

    files = {"policy": (args.exercise_policy, NEEDS),
             "window": (args.exercise_window, WINDOW_NEEDS),
             "planes": (args.exercise_planes, PLANES_NEEDS)}

    def body() -> int:
        if all(path is None for path, _ in files.values()):
            raise UsageError(f"give {POLICY_FLAG}, {WINDOW_FLAG} or {PLANES_FLAG}")
        parts = {name: load_student_module(path, needs) if path is not None else None
                 for name, (path, needs) in files.items()}
        return endpoint_main(rest, sender_class=sender_with(**parts))
    return run_main("error", body, {(UsageError, CheckFailed): 2})


if __name__ == "__main__":
    sys.exit(main())
