"""The collectives' schedules (mrclab.fabric.collective): who sends what to whom after
which receive, checked against the algorithms' data flow and nccl-tests' figures."""

from __future__ import annotations

import bisect

import pytest

from mrclab.fabric.collective import (
    PATTERNS,
    CollectiveError,
    algbw,
    build_schedule,
    bus_factor,
    busbw,
    ideal_seconds,
    place_ranks,
)
from mrclab.fabric.spec import parse_spec

MIB = 1 << 20


def _blocks(size: int, ranks: int) -> list[int]:
    """Start offsets of the ranks' blocks (as the schedule cuts the buffer)."""
    base, extra = divmod(size, ranks)
    starts, at = [], 0
    for b in range(ranks):
        starts.append(at)
        at += base + (1 if b < extra else 0)
    return starts


def _reduced(schedule) -> list[list[frozenset]]:
    """Play the schedule's data flow: per rank and block, the ranks whose contribution it
    holds. A reducing step adds what arrives, a gathering step replaces by it."""
    r = schedule.ranks
    starts = _blocks(schedule.size, r)
    held = [[frozenset([rank]) for _ in range(r)] for rank in range(r)]
    gathering_from = {"ring-allreduce": r - 1, "halving-doubling": schedule.steps // 2}
    by_step: dict[int, list] = {}
    for t in schedule.transfers:
        by_step.setdefault(t.step, []).append(t)
    for step in sorted(by_step):
        sent = []
        for t in by_step[step]:  # everything a step sends is read before it lands
            first = bisect.bisect_right(starts, t.offset) - 1
            last = bisect.bisect_right(starts, t.offset + t.size - 1) - 1
            sent += [(t.dst, b, held[t.src][b]) for b in range(first, last + 1)]
        for dst, b, contribution in sent:
            if step >= gathering_from[schedule.pattern]:
                held[dst][b] = contribution
            else:
                held[dst][b] = held[dst][b] | contribution
    return held


@pytest.mark.parametrize("pattern,ranks", [("ring-allreduce", 2), ("ring-allreduce", 5),
                                           ("ring-allreduce", 16), ("halving-doubling", 2),
                                           ("halving-doubling", 8),
                                           ("halving-doubling", 16)])
@pytest.mark.parametrize("slice_bytes", [100, 1000, 10**6])
def test_an_allreduce_leaves_every_block_reduced_over_every_rank(pattern, ranks, slice_bytes):
    schedule = build_schedule(pattern, ranks, 4096 * ranks + 3, slice_bytes)
    everyone = frozenset(range(ranks))
    assert all(block == everyone for rank in _reduced(schedule) for block in rank)


def test_ring_steps_blocks_and_dependencies():
    r, size = 8, 8 * 4000
    s = build_schedule("ring-allreduce", r, size, 1000)  # 4 slices per block
    assert s.steps == 2 * (r - 1)
    assert len(s.transfers) == r * 2 * (r - 1) * 4
    for t in s.transfers:
        assert t.dst == (t.src + 1) % r
        assert t.offset // 4000 == (t.src - t.step) % r  # block (r - s) mod R at step s
        if t.step == 0:
            assert t.deps == ()
        else:  # the same slice, brought by the left neighbour one step earlier
            (dep,) = t.deps
            before = s.transfers[dep]
            assert (before.src, before.dst, before.step) == ((t.src - 1) % r, t.src, t.step - 1)
            assert (before.offset, before.size) == (t.offset, t.size)
    for rank in range(r):
        assert s.bytes_sent(rank) == 2 * (r - 1) * size // r
        assert len(s.receives[rank]) == len(s.sends[rank]) == 2 * (r - 1) * 4
        steps = [s.transfers[t].step for t in s.sends[rank]]
        assert steps == sorted(steps)  # a rank issues step by step


def test_halving_doubling_partners_and_sizes():
    r, size = 16, 16 * 1024
    s = build_schedule("halving-doubling", r, size, size)  # no slicing: one message a step
    assert s.steps == 8
    distances = [8, 4, 2, 1, 1, 2, 4, 8]
    for t in s.transfers:
        assert t.dst == t.src ^ distances[t.step]
        halving = t.step < 4
        blocks = r >> (t.step + 1) if halving else 1 << (t.step - 4)
        assert t.size == blocks * 1024
    for rank in range(r):
        assert s.bytes_sent(rank) == 2 * (r - 1) * size // r


def test_alltoall_sends_each_block_once_to_its_rank_without_dependencies():
    r, size = 6, 6 * 5000
    s = build_schedule("alltoall", r, size, 5000)
    assert s.steps == r - 1
    pairs = {(t.src, t.dst) for t in s.transfers}
    assert pairs == {(a, b) for a in range(r) for b in range(r) if a != b}
    assert all(t.deps == () and t.offset == t.dst * 5000 for t in s.transfers)
    for rank in range(r):
        assert s.bytes_sent(rank) == (r - 1) * size // r
        assert [s.transfers[t].dst for t in s.sends[rank]] == \
            [(rank + k) % r for k in range(1, r)]


def test_nccl_tests_bandwidths():
    assert bus_factor("ring-allreduce", 8) == pytest.approx(1.75)
    assert bus_factor("halving-doubling", 128) == pytest.approx(2 * 127 / 128)
    assert bus_factor("alltoall", 16) == pytest.approx(15 / 16)
    size = 64 * MIB
    assert algbw(size, 1e-3) == pytest.approx(67.108864e9)
    assert busbw("ring-allreduce", 8, size, 1e-3) == pytest.approx(67.108864e9 * 1.75)
    # 128 ranks at 12.5 GB/s each (100 Gb/s): each sends 2 x 127/128 x 64 MiB
    assert ideal_seconds("ring-allreduce", 128, size, 12.5e9) == \
        pytest.approx(2 * 127 / 128 * size / 12.5e9)
    assert busbw("ring-allreduce", 128, size,
                 ideal_seconds("ring-allreduce", 128, size, 12.5e9)) == pytest.approx(12.5e9)


@pytest.mark.parametrize("args,message", [
    (("ring", 4, 4096, 1024), "unknown pattern 'ring'"),
    (("alltoall", 4, 0, 1024), "size 0 bytes"),
    (("ring-allreduce", 1, 4096, 1024), "1 ranks"),
    (("halving-doubling", 12, 4096, 1024), "power of two"),
    (("ring-allreduce", 8, 7, 1024), "size 7 bytes"),
])
def test_bad_collectives_are_named(args, message):
    with pytest.raises(CollectiveError, match=message):
        build_schedule(*args)


def test_placements_on_a_fat_tree():
    fabric = parse_spec("fattree:k=4")  # 4 pods of 4 hosts
    pod = {name: h.group for name, h in fabric.hosts.items()}
    spread = place_ranks(fabric, 16, "spread")
    assert [pod[h] for h in spread[:8]] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert all(pod[a] != pod[b] for a, b in zip(spread, spread[1:] + spread[:1], strict=True))
    packed = place_ranks(fabric, 8, "packed")
    assert [pod[h] for h in packed] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert len(set(spread)) == 16
    with pytest.raises(CollectiveError, match="17 ranks: fattree:k=4 has 16 hosts"):
        place_ranks(fabric, 17, "spread")
    with pytest.raises(CollectiveError, match="unknown placement 'scattered'"):
        place_ranks(fabric, 4, "scattered")


def test_patterns_are_the_documented_ones():
    assert PATTERNS == ("ring-allreduce", "halving-doubling", "alltoall")
