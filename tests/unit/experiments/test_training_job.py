"""The job model (mrclab.fabric.training_job) driven by a toy network: every rank's NIC
sends at one rate, a message arrives a latency after its last byte and its sender hears
so a latency later. What is checked is the job's logic (barrier, order, window,
dependencies, compute, stragglers, losses), not a transport."""

from __future__ import annotations

import itertools
from heapq import heappop, heappush

import pytest

from mrclab.fabric.collective import build_schedule, ideal_seconds
from mrclab.fabric.training_job import CollectiveJob, JobSpec

RATE = 1e9  # bytes/s per NIC
LATENCY = 2e-6


def play(schedule, spec, lose=frozenset(), latency=LATENCY):
    """Run the job; returns it and the starts [(time, iteration, tid)] and arrivals
    {(iteration, tid): time}. `lose`: (iteration, tid) whose sender gives up."""
    job = CollectiveJob(schedule, spec)
    heap, seq = [], itertools.count()
    nic_free = [0.0] * schedule.ranks
    starts, arrivals, inflight, peak = [], {}, {}, [0] * schedule.ranks

    def push(when, fn, *args):
        heappush(heap, (when, next(seq), fn, args))

    def start(tids, now):
        i = job.current.index
        for tid in tids:
            t = schedule.transfers[tid]
            starts.append((now, i, tid))
            inflight[t.src] = inflight.get(t.src, 0) + 1
            peak[t.src] = max(peak[t.src], inflight[t.src])
            nic_free[t.src] = max(now, nic_free[t.src]) + t.size / RATE
            if (i, tid) in lose:
                push(nic_free[t.src] + 5 * latency, sent, tid, False)
            else:
                push(nic_free[t.src] + latency, arrived, tid)
                push(nic_free[t.src] + 2 * latency, sent, tid, True)

    def arrived(tid, now):
        arrivals[(job.current.index, tid)] = now
        start(job.arrived(tid, now), now)

    def sent(tid, ok, now):
        inflight[schedule.transfers[tid].src] -= 1
        start(job.sent(tid, now, ok), now)

    def compute(rank, now):
        start(job.compute_done(rank, now), now)

    def begin(now):
        for when, rank in job.start_iteration(now):
            push(when, compute, rank)

    begin(0.0)
    while heap:
        now, _, fn, args = heappop(heap)
        fn(*args, now)
        if job.current.end is not None and not job.done:
            begin(job.current.end)
    return job, starts, arrivals, peak


def test_the_barrier_holds_and_every_iteration_ends():
    s = build_schedule("ring-allreduce", 8, 8 * 40_000, 10_000)
    job, starts, _, _ = play(s, JobSpec(iterations=4, compute_s=50e-6, jitter=0.1, seed=3))
    assert job.done and len(job.iterations) == 4
    for before, after in itertools.pairwise(job.iterations):
        assert after.start == before.end  # the next compute starts at the barrier
    for now, i, _ in starts:  # no transfer runs before its rank's compute is over
        record = job.iterations[i]
        assert record.start <= now < record.end
    for record in job.iterations:
        assert record.end == max(record.finish)
        assert all(c >= record.start for c in record.compute_end)
        assert record.step_s == pytest.approx(record.end - record.start)
        assert record.comm_s == pytest.approx(record.end - max(record.compute_end))
        assert record.lost == 0


def test_sends_go_in_order_within_the_window_after_their_dependencies():
    s = build_schedule("ring-allreduce", 6, 6 * 64_000, 8_000)
    spec = JobSpec(iterations=2, compute_s=10e-6, window=3)
    job, starts, arrivals, peak = play(s, spec)
    for rank in range(6):
        order = [tid for _, i, tid in starts if i == 1 and s.transfers[tid].src == rank]
        assert order == list(s.sends[rank])
    assert max(peak) == 3
    for now, i, tid in starts:
        assert all(arrivals[(i, d)] <= now for d in s.transfers[tid].deps)


def test_a_sliced_ring_pipelines_where_a_chained_one_waits():
    size, r = 8 * 40_000, 8  # a chunk takes 40 us, twice the latency
    # 16 slices in flight cover a slice's 45 us from its start to its ACK
    spec = JobSpec(iterations=1, compute_s=0.0, window=16)
    ideal = ideal_seconds("ring-allreduce", r, size, RATE)
    chained, *_ = play(build_schedule("ring-allreduce", r, size, size), spec, latency=20e-6)
    sliced, *_ = play(build_schedule("ring-allreduce", r, size, 5_000), spec,
                      latency=20e-6)
    # chained: 14 steps, each a whole chunk plus the latency of its arrival, and the
    # last sender hears of its arrival a latency later
    assert chained.iterations[0].comm_s == pytest.approx(14 * (40_000 / RATE + 20e-6)
                                                         + 20e-6)
    assert sliced.iterations[0].comm_s < ideal * 1.15 < 1.5 * ideal \
        < chained.iterations[0].comm_s


def test_a_straggler_sets_the_step_time():
    s = build_schedule("ring-allreduce", 8, 8 * 10_000, 5_000)
    spec = JobSpec(iterations=3, compute_s=100e-6, straggler=5, straggler_factor=2.0)
    job, *_ = play(s, spec)
    even, *_ = play(s, JobSpec(iterations=3, compute_s=100e-6))
    for record, base in zip(job.iterations, even.iterations, strict=True):
        assert record.compute_end.index(record.collective_start) == 5
        assert record.collective_start - record.start == pytest.approx(200e-6)
        assert record.step_s == pytest.approx(200e-6 + base.comm_s)
        assert record.comm_s == pytest.approx(base.comm_s)


def test_alltoall_moves_every_block_with_no_dependencies():
    s = build_schedule("alltoall", 5, 5 * 3000, 3000)
    job, starts, arrivals, _ = play(s, JobSpec(iterations=1, compute_s=0.0, window=2))
    assert job.done
    assert {tid for _, _, tid in starts} == set(range(len(s.transfers)))
    assert len(arrivals) == len(s.transfers)


def test_a_lost_transfer_is_counted_and_the_job_goes_on():
    s = build_schedule("ring-allreduce", 4, 4 * 1000, 1000)
    job, *_ = play(s, JobSpec(iterations=3, compute_s=1e-6), lose={(1, 5)})
    assert job.done
    assert [r.lost for r in job.iterations] == [0, 1, 0]


def test_compute_times_are_seeded_with_jitter_and_straggler():
    spec = JobSpec(iterations=20, compute_s=1e-3, jitter=0.05, straggler=2,
                   straggler_factor=3.0, seed=7)
    times = spec.compute_times(4)
    assert times == spec.compute_times(4)
    assert times != JobSpec(**{**spec.__dict__, "seed": 8}).compute_times(4)
    others = [t for row in times for r, t in enumerate(row) if r != 2]
    assert min(others) >= 0.95e-3 and max(others) <= 1.05e-3
    assert max(others) - min(others) > 0.05e-3
    assert all(row[2] >= 3 * 0.95e-3 for row in times)


@pytest.mark.parametrize("changes,message", [
    ({"iterations": 0}, "0 iterations"), ({"jitter": 1.5}, "jitter 1.5"),
    ({"straggler": 9}, "straggler rank 9"), ({"straggler_factor": 0.5}, "straggler factor"),
    ({"window": 0}, "window 0"), ({"compute_s": -1.0}, "compute time")])
def test_bad_job_figures_are_named(changes, message):
    spec = JobSpec(**{"iterations": 1, "compute_s": 0.0, **changes})
    with pytest.raises(ValueError, match=message):
        spec.check(8)
