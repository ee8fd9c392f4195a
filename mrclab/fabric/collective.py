"""Collectives as schedules of transfers (pure): which rank sends which bytes to whom, after
which of its own receives, and what nccl-tests would report for them.

A rank's buffer of `size` bytes is cut into one block per rank, each block into slices of at
most `slice_bytes` (NCCL's ring moves a chunk in slices, so that a rank forwards a slice as
soon as it has it instead of waiting for the whole chunk and its final ACK). A `Transfer`
is one message of the endpoint: a run of consecutive slices that one rank sends to another
in one step of the algorithm. Its dependencies are the transfers into its sender that last
brought the same slices: the data to forward (or to reduce and forward) is there only once
they have arrived. A transfer of a rank's own data depends on nothing but the rank's compute
phase, which the job model (`mrclab.fabric.training_job`) adds.

Patterns:
- `ring-allreduce`: reduce-scatter then all-gather around the ring, 2(R-1) steps; at step s
  rank r sends block (r - s) mod R to rank r + 1, the block it received at step s - 1.
- `halving-doubling`: Rabenseifner's all-reduce, for a power-of-two R: reduce-scatter by
  recursive halving (partners R/2, R/4, ... 1 apart, each step sending half of what is left),
  then all-gather by recursive doubling (1, 2, ... R/2 apart).
- `alltoall`: every rank sends block d of its buffer to rank d (MoE expert parallelism);
  step s = 1..R-1 sends to rank r + s, so that each step is a permutation.

Bandwidths follow nccl-tests (doc/PERFORMANCE.md): algbw = size / time, size being the
per-rank buffer; busbw = algbw x 2(R-1)/R for an all-reduce (either algorithm), x (R-1)/R
for an all-to-all, so that busbw compares with the link's rate whatever R is.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from mrclab.fabric.model import Fabric

PATTERNS = ("ring-allreduce", "halving-doubling", "alltoall")
PLACEMENTS = ("spread", "packed")


class CollectiveError(ValueError):
    """A collective that cannot be built as asked; one-line message naming the input."""


@dataclass(frozen=True, slots=True)
class Transfer:
    """One message: `size` bytes from rank `src` to rank `dst` in step `step`, starting at
    byte `offset` of the buffer; it may start once every transfer in `deps` (all of them
    into `src`) has arrived."""

    id: int
    src: int
    dst: int
    step: int
    offset: int
    size: int
    deps: tuple[int, ...] = ()


@dataclass(frozen=True)
class Schedule:
    pattern: str
    ranks: int
    size: int  # bytes per rank (nccl-tests' "size")
    slice_bytes: int
    steps: int
    transfers: tuple[Transfer, ...]  # transfers[i].id == i
    sends: tuple[tuple[int, ...], ...]  # per rank, its transfers in the order it issues them
    receives: tuple[tuple[int, ...], ...]  # per rank, the transfers it receives

    def bytes_sent(self, rank: int) -> int:
        return sum(self.transfers[t].size for t in self.sends[rank])

    def digest(self) -> str:
        """A fingerprint of the transfers (a lab rank checks its schedule against the
        coordinator's; a record keeps the schedule it ran)."""
        text = repr([(t.src, t.dst, t.size, t.deps) for t in self.transfers])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def dependents(self) -> list[list[int]]:
        """Per transfer, the transfers that wait for it."""
        out: list[list[int]] = [[] for _ in self.transfers]
        for t in self.transfers:
            for d in t.deps:
                out[d].append(t.id)
        return out


def _split(total: int, parts: int) -> list[int]:
    """`total` in `parts` near-equal sizes, the larger first."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


class _Builder:
    """Turns steps of (src, dst, blocks) into transfers with their dependencies."""

    def __init__(self, ranks: int, size: int, slice_bytes: int) -> None:
        self.slice_bytes = slice_bytes
        blocks = _split(size, ranks)
        starts = [sum(blocks[:b]) for b in range(ranks)]
        # per block, its slices as (offset, size)
        self.slices: list[list[tuple[int, int]]] = []
        for start, length in zip(starts, blocks, strict=True):
            sizes = _split(length, max(1, math.ceil(length / slice_bytes)))
            self.slices.append([(start + sum(sizes[:j]), s) for j, s in enumerate(sizes)])
        self.transfers: list[Transfer] = []
        self.last_in: dict[tuple[int, int, int], int] = {}  # (rank, block, slice) -> transfer

    def step(self, step: int, exchanges: list[tuple[int, int, list[int]]]) -> None:
        """One step: every (src, dst, blocks) at once. Dependencies are read before any of
        the step's receives are recorded: a step sends what came in before it."""
        made: list[tuple[int, int, list[tuple[int, int]]]] = []
        for src, dst, blocks in exchanges:
            group: list[tuple[int, int]] = []
            size = 0
            for piece in ((blk, j) for blk in blocks for j in range(len(self.slices[blk]))):
                length = self.slices[piece[0]][piece[1]][1]
                if group and size + length > self.slice_bytes:
                    made.append((src, dst, group))
                    group, size = [], 0
                group.append(piece)
                size += length
            if group:
                made.append((src, dst, group))
        received = []
        for src, dst, pieces in made:
            deps = sorted({self.last_in[(src, blk, j)] for blk, j in pieces
                           if (src, blk, j) in self.last_in})
            tid = len(self.transfers)
            self.transfers.append(Transfer(
                tid, src, dst, step, self.slices[pieces[0][0]][pieces[0][1]][0],
                sum(self.slices[blk][j][1] for blk, j in pieces), tuple(deps)))
            received += [((dst, blk, j), tid) for blk, j in pieces]
        self.last_in.update(received)


def build_schedule(pattern: str, ranks: int, size: int, slice_bytes: int) -> Schedule:
    """The transfers of one collective of `size` bytes per rank over `ranks` ranks."""
    check(pattern, ranks, size, slice_bytes)
    builder = _Builder(ranks, size, slice_bytes)
    steps = _steps(pattern, ranks)
    for number, exchanges in enumerate(steps):
        builder.step(number, exchanges)
    sends: list[list[int]] = [[] for _ in range(ranks)]
    receives: list[list[int]] = [[] for _ in range(ranks)]
    for t in builder.transfers:  # in step order: a rank issues its sends step by step
        sends[t.src].append(t.id)
        receives[t.dst].append(t.id)
    return Schedule(pattern, ranks, size, slice_bytes, len(steps), tuple(builder.transfers),
                    tuple(map(tuple, sends)), tuple(map(tuple, receives)))


def _steps(pattern: str, ranks: int) -> list[list[tuple[int, int, list[int]]]]:
    """Per step, the (src, dst, blocks) exchanged."""
    r = ranks
    if pattern == "ring-allreduce":
        # the same formula serves both halves: at reduce-scatter step s rank i sends block
        # i - s; the all-gather's first step sends block i + 1 (i - (R - 1) mod R), the
        # block rank i finished reducing, and goes on from there
        return [[(i, (i + 1) % r, [(i - s) % r]) for i in range(r)]
                for s in range(2 * (r - 1))]
    if pattern == "alltoall":
        return [[(i, (i + s) % r, [(i + s) % r]) for i in range(r)] for s in range(1, r)]
    # halving-doubling: each rank holds a range of blocks [lo, hi); halving keeps the half
    # on its own side of the partner bit, doubling sends all it holds and takes the
    # partner's half. After the halving rank i holds block i alone.
    levels = r.bit_length() - 1
    held = [(0, r) for _ in range(r)]
    steps = []
    for k in range(levels):
        dist = r >> (k + 1)
        step = []
        new = []
        for i in range(r):
            lo, hi = held[i]
            mid = (lo + hi) // 2
            keep, give = ((lo, mid), (mid, hi)) if not i & dist else ((mid, hi), (lo, mid))
            step.append((i, i ^ dist, list(range(*give))))
            new.append(keep)
        held = new
        steps.append(step)
    for k in range(levels):
        dist = 1 << k
        step = [(i, i ^ dist, list(range(*held[i]))) for i in range(r)]
        held = [(min(held[i][0], held[i ^ dist][0]), max(held[i][1], held[i ^ dist][1]))
                for i in range(r)]
        steps.append(step)
    return steps


def check(pattern: str, ranks: int, size: int, slice_bytes: int) -> None:
    """CollectiveError naming the first bad input."""
    if pattern not in PATTERNS:
        raise CollectiveError(f"unknown pattern {pattern!r} (known: {', '.join(PATTERNS)})")
    if ranks < 2:
        raise CollectiveError(f"{ranks} ranks: a collective needs at least 2")
    if pattern == "halving-doubling" and ranks & (ranks - 1):
        raise CollectiveError(f"{ranks} ranks: halving-doubling needs a power of two")
    if size < ranks:
        raise CollectiveError(f"size {size} bytes: at least one byte per rank "
                              f"({ranks}) is needed" if size > 0 else
                              f"size {size} bytes: nothing to move")
    if slice_bytes < 1:
        raise CollectiveError(f"slice of {slice_bytes} bytes")


def bus_factor(pattern: str, ranks: int) -> float:
    """busbw / algbw (nccl-tests): what each rank's links carry per byte of its buffer."""
    if pattern in ("ring-allreduce", "halving-doubling"):
        return 2 * (ranks - 1) / ranks
    if pattern == "alltoall":
        return (ranks - 1) / ranks
    raise CollectiveError(f"unknown pattern {pattern!r}")


def algbw(size: int, seconds: float) -> float:
    """Bytes per second, nccl-tests' algbw: the per-rank buffer over the time."""
    return size / seconds


def busbw(pattern: str, ranks: int, size: int, seconds: float) -> float:
    return algbw(size, seconds) * bus_factor(pattern, ranks)


def ideal_seconds(pattern: str, ranks: int, size: int, rank_bytes_per_s: float) -> float:
    """The time a collective takes when every rank's NICs carry payload at
    `rank_bytes_per_s` throughout and the fabric never stands in the way: the bytes each
    rank sends (busbw's factor x size) at that rate. Latency is not counted."""
    return bus_factor(pattern, ranks) * size / rank_bytes_per_s


def place_ranks(fabric: Fabric, ranks: int, placement: str) -> list[str]:
    """The host of each rank. `packed`: hosts in order, so ring neighbours share a ToR or
    a pod; `spread`: one host of each pod in turn, so ring neighbours sit in different
    pods and every step of the ring crosses the core."""
    if placement not in PLACEMENTS:
        raise CollectiveError(f"unknown placement {placement!r} "
                              f"(known: {', '.join(PLACEMENTS)})")
    hosts = sorted(fabric.hosts.values(), key=lambda h: (h.group, h.index))
    if ranks > len(hosts):
        raise CollectiveError(f"{ranks} ranks: {fabric.spec} has {len(hosts)} hosts "
                              "(one rank per host)")
    if ranks < 1:
        raise CollectiveError(f"{ranks} ranks")
    if placement == "spread":
        groups = sorted({h.group for h in hosts})
        by_group = {g: [h for h in hosts if h.group == g] for g in groups}
        depth = max(len(v) for v in by_group.values())
        hosts = [by_group[g][i] for i in range(depth) for g in groups if i < len(by_group[g])]
    return [h.name for h in hosts[:ranks]]
