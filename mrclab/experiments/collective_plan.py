"""What a session needs to run a training job (`run_job`), on either engine: the ranks'
hosts, the collective's schedule, the job's compute side, and what the experiment does to
the fabric at given points of given iterations (a link fails mid-collective, say)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mrclab.fabric.collective import Schedule
from mrclab.fabric.training_job import JobSpec


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
