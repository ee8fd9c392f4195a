"""A training job as the network sees it (pure, sans I/O): iterations of a compute phase
followed by a collective, the iteration ending when the last rank is done (a barrier).

`CollectiveJob` takes events (a rank's compute ended, a transfer arrived, a sender finished)
with the time they happened and answers with the transfers to start now; it keeps the
iteration's records. Whoever drives it (the simulator's event loop, a rank's agent in the
lab) does the I/O: it starts each transfer as one message of the endpoint and reports back.

A rank issues its sends in the schedule's order (as NCCL's channel does), each once its
compute phase is over and its dependencies have arrived, with at most `window` of them
unfinished (NCCL keeps NCCL_STEPS = 8 slices in flight per channel). A sender is finished
when its message is acknowledged, or has failed: a failed transfer is counted lost and
releases its dependents all the same, so that the job goes on and the loss shows in the
records rather than as a hang.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from mrclab.fabric.collective import Schedule

DEFAULT_WINDOW = 8


def transfer_nonce(iteration: int, tid: int, transfers: int) -> int:
    """The nonce that opens transfer `tid` of `iteration`: it names the message to its
    receiving rank (`transfer_of`), and is unique among a receiver's connections (two opens
    of the same length and nonce would share one)."""
    return (iteration * transfers + tid) % 0xFFFFFFFF + 1


def transfer_of(nonce: int, transfers: int) -> tuple[int, int]:
    """(iteration, transfer id) that `transfer_nonce` gave `nonce` (for fewer than 2^32
    transfers in all)."""
    serial = nonce - 1
    return serial // transfers, serial % transfers


@dataclass(frozen=True)
class JobSpec:
    """The job's compute side: `iterations` steps of `compute_s` seconds each per rank,
    each rank's time drawn within +-`jitter` (a fraction) of it per iteration, and rank
    `straggler` (None: none) `straggler_factor` times slower."""

    iterations: int
    compute_s: float
    jitter: float = 0.0
    straggler: int | None = None
    straggler_factor: float = 1.0
    window: int = DEFAULT_WINDOW
    seed: int = 1

    def check(self, ranks: int) -> None:
        """ValueError naming the first bad figure."""
        if self.iterations < 1:
            raise ValueError(f"{self.iterations} iterations")
        if self.compute_s < 0:
            raise ValueError(f"compute time {self.compute_s:g} s")
        if not 0 <= self.jitter < 1:
            raise ValueError(f"jitter {self.jitter:g}: a fraction in [0, 1)")
        if self.straggler is not None and not 0 <= self.straggler < ranks:
            raise ValueError(f"straggler rank {self.straggler}: ranks are 0..{ranks - 1}")
        if self.straggler_factor < 1:
            raise ValueError(f"straggler factor {self.straggler_factor:g}: at least 1")
        if self.window < 1:
            raise ValueError(f"window {self.window}: at least 1")

    def compute_times(self, ranks: int) -> list[list[float]]:
        """Per iteration, each rank's compute time (seeded: the same on both engines)."""
        rng = random.Random(f"compute/{self.seed}")
        out = []
        for _ in range(self.iterations):
            row = [self.compute_s * (1 + rng.uniform(-self.jitter, self.jitter))
                   if self.jitter else self.compute_s for _ in range(ranks)]
            if self.straggler is not None:
                row[self.straggler] *= self.straggler_factor
            out.append(row)
        return out


@dataclass
class IterationRecord:
    """One iteration, times in seconds on the driver's clock."""

    index: int
    start: float
    compute_end: list[float]  # per rank
    finish: list[float | None]  # per rank: its last send finished and last receive arrived
    end: float | None = None  # the barrier: the last rank's finish
    transfers: int = 0
    lost: int = 0  # transfers whose sender gave up
    events: list[tuple[float, str]] = field(default_factory=list)  # (time, what) e.g. failures

    @property
    def collective_start(self) -> float:
        """When the last rank's compute ended: from here on every rank waits on the network."""
        return max(self.compute_end)

    @property
    def step_s(self) -> float | None:
        return None if self.end is None else self.end - self.start

    @property
    def comm_s(self) -> float | None:
        """The collective's time once every rank is in it (what nccl-tests times)."""
        return None if self.end is None else self.end - self.collective_start


class _Rank:
    """One rank's sends in one iteration."""

    __slots__ = ("sends", "next", "inflight", "computed", "missing", "to_receive", "to_finish")

    def __init__(self, schedule: Schedule, rank: int) -> None:
        self.sends = schedule.sends[rank]
        self.next = 0
        self.inflight = 0
        self.computed = False
        self.missing = {t: len(schedule.transfers[t].deps) for t in self.sends}
        self.to_receive = len(schedule.receives[rank])
        self.to_finish = len(self.sends)

    def ready(self, window: int) -> list[int]:
        out = []
        while (self.computed and self.next < len(self.sends) and self.inflight < window
               and self.missing[self.sends[self.next]] == 0):
            out.append(self.sends[self.next])
            self.next += 1
            self.inflight += 1
        return out

    @property
    def finished(self) -> bool:
        return self.computed and self.to_receive == 0 and self.to_finish == 0


class CollectiveJob:
    """The job's iterations over one schedule; see the module's docstring. Transfers are
    named (iteration, transfer id)."""

    def __init__(self, schedule: Schedule, spec: JobSpec) -> None:
        spec.check(schedule.ranks)
        self.schedule, self.spec = schedule, spec
        self.compute = spec.compute_times(schedule.ranks)
        self._dependents = schedule.dependents()
        self.iterations: list[IterationRecord] = []
        self._ranks: list[_Rank] = []
        self._arrived: set[int] = set()
        self._finished: set[int] = set()

    @property
    def current(self) -> IterationRecord | None:
        return self.iterations[-1] if self.iterations else None

    @property
    def done(self) -> bool:
        """Every iteration has ended."""
        return (len(self.iterations) == self.spec.iterations
                and self.iterations[-1].end is not None)

    @property
    def running(self) -> bool:
        """An iteration has started and not ended."""
        return bool(self.iterations) and self.iterations[-1].end is None

    def start_iteration(self, now: float) -> list[tuple[float, int]]:
        """Begin the next iteration at `now` (the previous one's barrier); returns (time,
        rank) of each rank's compute end, for the driver to report with `compute_done`."""
        if self.running or self.done:
            raise RuntimeError("start_iteration: an iteration is running or the job is over")
        i = len(self.iterations)
        ranks = self.schedule.ranks
        ends = [now + c for c in self.compute[i]]
        self.iterations.append(IterationRecord(i, now, ends, [None] * ranks,
                                               transfers=len(self.schedule.transfers)))
        self._ranks = [_Rank(self.schedule, r) for r in range(ranks)]
        self._arrived, self._finished = set(), set()
        return sorted((t, r) for r, t in enumerate(ends))

    def upcoming(self, rank: int, count: int) -> list[int]:
        """The next `count` sends of `rank` not started yet this iteration, in the order
        they will start: those whose connections a driver opens ahead of their data."""
        state = self._ranks[rank]
        return list(state.sends[state.next:state.next + count])

    def barrier_passed(self, now: float) -> None:
        """Every rank is done, as someone else saw it: a lab rank follows only its own
        part and learns of the others' from its coordinator."""
        if self.running:
            self.iterations[-1].end = now

    def compute_done(self, rank: int, now: float) -> list[int]:
        """Rank `rank` finished computing: the transfers it starts now."""
        state = self._ranks[rank]
        state.computed = True
        ready = state.ready(self.spec.window)
        self._check_finish(rank, now)
        return ready

    def arrived(self, tid: int, now: float) -> list[int]:
        """Transfer `tid` of the current iteration is all at its destination (the receiver
        has the whole message): the transfers that start now."""
        if tid in self._arrived:
            return []
        self._arrived.add(tid)
        dst = self.schedule.transfers[tid].dst
        state = self._ranks[dst]
        state.to_receive -= 1
        for d in self._dependents[tid]:
            state.missing[d] -= 1
        ready = state.ready(self.spec.window)
        self._check_finish(dst, now)
        return ready

    def sent(self, tid: int, now: float, ok: bool = True) -> list[int]:
        """Transfer `tid`'s sender finished (acknowledged, or failed when not `ok`)."""
        if tid in self._finished:
            return []
        self._finished.add(tid)
        src = self.schedule.transfers[tid].src
        state = self._ranks[src]
        state.inflight -= 1
        state.to_finish -= 1
        out = []
        if not ok and tid not in self._arrived:  # the data arrived, its last ACKs did not
            self.iterations[-1].lost += 1
            out += self.arrived(tid, now)  # the job goes on; the loss is in the record
        out += state.ready(self.spec.window)
        self._check_finish(src, now)
        return out

    def note(self, now: float, what: str) -> None:
        """Record something that happened during the iteration (a failure, say)."""
        self.iterations[-1].events.append((now, what))

    def _check_finish(self, rank: int, now: float) -> None:
        record = self.iterations[-1]
        if record.finish[rank] is None and self._ranks[rank].finished:
            record.finish[rank] = now
            if all(f is not None for f in record.finish):
                record.end = now
