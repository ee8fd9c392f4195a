"""The project's MRC sender with the student's recovery.py deciding the resend EV and EV
retirement, for simulator checks and for `python -m coursework.student_endpoint
--exercise-policy FILE send ...` (the endpoint CLI with that sender, in Mininet hosts)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from endpoint.core.ev_pool import EvPool, EvState
from endpoint.core.sender import MrcSender

POLICY_FLAG = "--exercise-policy"
NEEDS = ("resend_ev", "on_loss")


@dataclass(frozen=True)
class Resend:
    avoided: EvState  # the EV the PSN last went on
    chosen: EvState
    had_other: bool  # another usable EV existed at the time


class ExercisePool(EvPool):
    """EvPool whose resend choice and retirement decision are the student's."""

    policy: ModuleType
    resends: list[Resend]

    def choose(self, now: float, avoid: EvState | None = None) -> EvState:
        if avoid is None:
            return super().choose(now)
        picked: list[EvState] = []

        def pool_choice(when: float, not_this: EvState | None = None) -> EvState:
            picked.append(EvPool.choose(self, when, not_this))
            return picked[-1]

        chosen = self.policy.resend_ev(pool_choice, now, avoid)
        if not isinstance(chosen, EvState) or self.lookup(chosen.plane, chosen.ev) is not chosen:
            raise TypeError(f"resend_ev returned {chosen!r}, not one of the pool's EVs")
        if not picked or chosen is not picked[-1]:
            self._use(chosen)  # the pool's choice counts its use; a bypass must too
        had_other = any(st.usable and st is not avoid for st in self.all())
        self.resends.append(Resend(avoid, chosen, had_other))
        return chosen

    def on_loss(self, st: EvState, now: float, probe_delay: float) -> bool:
        if not self.policy.on_loss(st, self.retire_after):
            return False
        # EvPool.on_loss counts a loss and retires at retire_after in a row: hand it the
        # count just below that so its retirement bookkeeping (status, probe timer, record)
        # runs once, without counting this loss twice
        st.losses -= 1
        st.losses_in_row = self.retire_after - 1
        return super().on_loss(st, now, probe_delay)


def sender_class(policy: ModuleType) -> type[MrcSender]:
    """MrcSender whose pool is an ExercisePool driven by `policy`."""
    pool_cls = type("StudentPool", (ExercisePool,), {"policy": policy})

    class StudentSender(MrcSender):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.pool.__class__ = pool_cls  # same EVs and state, student's decisions
            self.pool.resends = []

    return StudentSender


@contextlib.contextmanager
def sender_replaced(module: ModuleType, policy: ModuleType) -> Iterator[None]:
    """`module.MrcSender` (the simulator harness's, the socket runner's) is the student's
    sender while the block runs."""
    original = module.MrcSender
    module.MrcSender = sender_class(policy)
    try:
        yield
    finally:
        module.MrcSender = original


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument(POLICY_FLAG, type=Path, required=True)
    args, rest = ap.parse_known_args(sys.argv[1:] if argv is None else argv)
    import endpoint.runner
    from coursework.student_code import load_student_module
    from coursework.worker import CheckFailed
    from endpoint.cli import main as endpoint_main

    try:
        policy = load_student_module(args.exercise_policy, NEEDS)
    except CheckFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with sender_replaced(endpoint.runner, policy):
        return endpoint_main(rest)


if __name__ == "__main__":
    sys.exit(main())
