"""What a session needs to run a training job (`run_job`), on either engine: the ranks'
hosts, the collective's schedule, the job's compute side, and what the experiment does to
the fabric at given points of given iterations (a link fails mid-collective, say)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mrclab.fabric.collective import Schedule
from mrclab.fabric.training_job import IterationRecord, JobSpec

# an iteration still running this long after its collective began has stalled: the job
# stops there (a sender gives up after its idle timeout, so a lost transfer ends sooner)
STALL_IDEALS = 50
STALL_IDLE_TIMEOUTS = 3


@dataclass(frozen=True)
class IterationAction:
    """`action()` during iteration `iteration`, `fraction` of a collective's time after
    the collective began (the last rank's compute ended); the collective's time is the
    shortest of the iterations before, or the ideal one for the first. `action` returns
    what it did, which the record of the iteration then running keeps."""

    iteration: int
    fraction: float
    action: Callable[[], str]


@dataclass(frozen=True)
class JobPlan:
    hosts: tuple[str, ...]  # rank i runs on hosts[i]
    schedule: Schedule
    spec: JobSpec
    ideal_s: float  # the collective at the links' payload rate
    actions: tuple[IterationAction, ...] = ()
    timeout_s: float = 1.0  # the whole job at most (the engine's seconds)


def stall_limit(plan: JobPlan, record: IterationRecord, idle_timeout: float) -> float:
    """When `record`'s iteration counts as stalled, on the engine's clock."""
    return record.collective_start + STALL_IDEALS * plan.ideal_s + STALL_IDLE_TIMEOUTS * idle_timeout


def due_actions(plan: JobPlan, done: list[IterationRecord], record: IterationRecord
                ) -> list[tuple[float, IterationAction]]:
    """(when, action) of the plan's actions in `record`'s iteration, on the engine's clock.
    A fraction counts of the collective's undisturbed time: the shortest of the iterations
    `done` before, or the ideal for the first (an iteration that a failure slowed would put
    the next failure past its iteration's end)."""
    times = [r.comm_s for r in done if r.comm_s is not None]
    reference = min(times) if times else plan.ideal_s
    return [(record.collective_start + action.fraction * reference, action)
            for action in plan.actions if action.iteration == record.index]
