"""JobTransfers opens a rank's next sends ahead of their data and releases them when the
job model starts them: each transfer is opened once, sent once, and a held one only ever
goes when the job says so."""

from __future__ import annotations

from collections import deque
from types import SimpleNamespace

from mrclab.endpoint.core.sender_config import SenderStats
from mrclab.experiments.job_transfers import JobTransfers
from mrclab.fabric.collective import build_schedule
from mrclab.fabric.training_job import CollectiveJob, JobSpec, transfer_nonce


def _flow(tid: int, hold: bool) -> SimpleNamespace:
    sender = SimpleNamespace(done=False, failed=False, stats=SenderStats())
    return SimpleNamespace(tid=tid, held=hold, sender=sender)


def test_the_next_window_of_sends_is_opened_ahead_and_released_in_the_jobs_order():
    schedule = build_schedule("ring-allreduce", 4, 64 << 10, 4 << 10)
    job = CollectiveJob(schedule, JobSpec(iterations=1, compute_s=0.0, window=2))
    opened: dict[int, SimpleNamespace] = {}
    sent: list[int] = []  # in the order the data went
    wire: deque = deque()

    def open_transfer(tid: int, hold: bool) -> SimpleNamespace:
        assert tid not in opened, f"transfer {tid} opened twice"
        flow = opened[tid] = _flow(tid, hold)
        if not hold:
            sent.append(tid)
            wire.append(flow)
        return flow

    def release(flow: SimpleNamespace) -> None:
        assert flow.held, f"transfer {flow.tid} released but never held"
        flow.held = False
        sent.append(flow.tid)
        wire.append(flow)

    transfers = JobTransfers(job, open_transfer, release)
    job.start_iteration(0.0)
    transfers.new_iteration()
    transfers.open_ahead(range(4))
    assert sorted(opened) == sorted(t for r in range(4) for t in schedule.sends[r][:2])
    assert not sent  # nothing goes before the compute phase ends
    for rank in range(4):
        transfers.start(job.compute_done(rank, 0.0))
    now = 0.0
    while wire:  # every message arrives, then its sender hears of it
        flow = wire.popleft()
        now += 1e-6
        transfers.arrived(SimpleNamespace(ok=True, nonce=transfer_nonce(0, flow.tid, len(
            schedule.transfers))), now)
        flow.sender.done = True
        assert transfers.finished(flow, now) == (flow.tid, True)
    assert job.done
    assert sorted(sent) == list(range(len(schedule.transfers)))  # each exactly once
    for rank in range(4):  # and each rank's in the schedule's order
        assert [t for t in sent if schedule.transfers[t].src == rank] == \
            list(schedule.sends[rank])
    held = [tid for tid, flow in opened.items() if schedule.sends[schedule.transfers[tid].src]
            .index(tid) >= 2]
    assert held and all(not opened[t].held for t in held)  # opened ahead, all released


def test_upcoming_is_the_next_sends_not_started():
    schedule = build_schedule("ring-allreduce", 4, 64 << 10, 4 << 10)
    job = CollectiveJob(schedule, JobSpec(iterations=1, compute_s=0.0, window=2))
    job.start_iteration(0.0)
    assert job.upcoming(1, 3) == list(schedule.sends[1][:3])
    started = job.compute_done(1, 0.0)
    assert job.upcoming(1, 3) == list(schedule.sends[1][len(started):len(started) + 3])
