"""The lab job's coordinator (barrier, loss hand-over, actions, stall) against fake ranks
on its Unix socket: no Mininet, no root."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from mrclab.experiments.collective_plan import IterationAction, JobPlan
from mrclab.experiments.config import ExperimentError
from mrclab.experiments.lab_engine import job
from mrclab.fabric.collective import build_schedule
from mrclab.fabric.training_job import JobSpec

RANKS = 4


class _Alive:
    def poll(self) -> None:
        return None


def _fake_rank(path: str, rank: int, finish_after: float, lose: int | None,
               seen: list, stop_after: int | None = None) -> None:
    try:
        _fake_rank_talks(path, rank, finish_after, lose, seen, stop_after)
    except OSError:  # the coordinator has closed: the job is over for this rank
        pass


def _fake_rank_talks(path: str, rank: int, finish_after: float, lose: int | None,
                     seen: list, stop_after: int | None) -> None:
    """Connects, reports ready, and for every start reports its part done `finish_after`
    seconds after the start; rank 0 says its transfer `lose` (to rank 1) was lost."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    conn.sendall(json.dumps({"ready": rank}).encode() + b"\n")
    buffer = b""
    while True:
        data = conn.recv(4096)
        if not data:
            return
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            msg = json.loads(line)
            seen.append((rank, msg))
            if "stop" in msg or (stop_after is not None and msg.get("start") == stop_after):
                conn.close()
                return
            if "start" in msg:
                if rank == 0 and lose is not None:
                    conn.sendall(json.dumps({"lost": lose, "iteration": msg["start"],
                                             "dst": 1}).encode() + b"\n")
                time.sleep(max(0.0, msg["at"] - time.time()) + finish_after)
                now = time.time()
                report = {"done": msg["start"], "rank": rank, "compute_end": msg["at"],
                          "finish": now, "lost": int(rank == 0 and lose is not None),
                          "totals": {"transfers": 3, "failed": 0, "data_sent": 7,
                                     "retransmits": 1, "nack_retransmits": 0, "timeouts": 0,
                                     "tail_probes": 0, "nacks": 0, "ecn_echoes": 0}}
                conn.sendall(json.dumps(report).encode() + b"\n")


def _run(tmp_path, plan: JobPlan, finish_after: float, lose: int | None = None,
         stop_after: int | None = None):
    sockdir = tmp_path / "s"
    sockdir.mkdir()
    path = str(sockdir / "job.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(RANKS)
    seen: list = []
    # `stop_after`: rank 0 leaves when told to start that iteration
    threads = [threading.Thread(target=_fake_rank, args=(path, r, finish_after * (r + 1), lose,
                                                         seen, stop_after if r == 0 else None),
                                daemon=True)
               for r in range(RANKS)]
    for t in threads:
        t.start()
    ranks = job._accept(server, [_Alive()] * RANKS, tmp_path, plan)
    outcome = job.JobOutcome(t0=time.time())
    try:
        job._iterations(ranks, plan, 0.01, outcome, on_action_error=print)
    finally:
        ranks.tell_all({"stop": True})
        ranks.close()
        server.close()
    return outcome, seen


def _plan(iterations: int, actions=(), ideal: float = 0.01) -> JobPlan:
    schedule = build_schedule("ring-allreduce", RANKS, 4096, 1024)
    return JobPlan(tuple(f"h{i + 1}" for i in range(RANKS)), schedule,
                   JobSpec(iterations, 0.0), ideal, tuple(actions))


def test_barrier_ends_each_iteration_with_the_last_rank(tmp_path):
    done: list[str] = []
    plan = _plan(3, [IterationAction(1, 0.5, lambda: done.append("x") or "link fails")])
    outcome, seen = _run(tmp_path, plan, finish_after=0.02)
    assert [r.index for r in outcome.iterations] == [0, 1, 2]
    for record in outcome.iterations:
        assert record.end == max(record.finish)  # the barrier: the slowest rank
        assert record.finish[3] == record.end  # rank 3 is the slowest fake
        assert record.comm_s == pytest.approx(0.08, abs=0.03)
    starts = [msg["at"] for rank, msg in seen if rank == 0 and "start" in msg]
    assert len(starts) == 3 and starts == sorted(starts)
    # the next iteration starts only after every rank reported the previous one
    assert starts[1] - starts[0] >= 0.08
    assert done == ["x"] and outcome.iterations[1].events[0][1] == "link fails"
    assert outcome.totals[0].transfers == 3 * RANKS and outcome.totals[0].retransmits == RANKS
    assert not outcome.stalled


def test_a_lost_transfer_is_passed_to_its_receiving_rank(tmp_path):
    outcome, seen = _run(tmp_path, _plan(1), finish_after=0.01, lose=5)
    told = [msg for rank, msg in seen if rank == 1 and "lost" in msg]
    assert told == [{"lost": 5, "iteration": 0, "dst": 1}]
    assert outcome.iterations[0].lost == 1


def test_an_iteration_past_its_stall_limit_stops_the_job(tmp_path, monkeypatch):
    monkeypatch.setattr("mrclab.experiments.collective_plan.STALL_IDEALS", 1)
    monkeypatch.setattr("mrclab.experiments.collective_plan.STALL_IDLE_TIMEOUTS", 1)
    # every rank takes 0.5 s or more: far past 1 ideal (10 ms) plus 1 idle timeout (10 ms)
    outcome, _ = _run(tmp_path, _plan(3), finish_after=0.5)
    assert outcome.stalled
    assert len(outcome.iterations) == 1 and outcome.iterations[0].end is None


def test_a_rank_that_leaves_is_named(tmp_path):
    with pytest.raises(ExperimentError, match="rank 0 left the job"):
        _run(tmp_path, _plan(2), finish_after=0.01, stop_after=0)
