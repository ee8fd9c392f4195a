"""A training job in the lab: one rank agent per Mininet host
(`mrclab.experiments.lab_engine.rank_agent`) and the barrier between iterations.

The coordinator listens on a Unix socket (a path: it crosses the hosts' network
namespaces), starts the agents, and for each iteration tells every rank when it starts (a
few milliseconds ahead, so that all start together), runs the plan's actions (a link fails
mid-collective) on a thread at their times, passes on a sender's loss to the receiving
rank, and waits until every rank has reported its part done: the barrier. Each iteration's
record is made from the ranks' reports with the same `IterationRecord` the simulator fills,
times from the job's first start. An iteration that does not end by its stall limit stops
the job; Ctrl-C or SIGTERM keeps the iterations done.
"""

from __future__ import annotations

import json
import logging
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from mrclab.experiments.collective_plan import IterationAction, JobPlan, due_actions, stall_limit
from mrclab.experiments.config import ExperimentError
from mrclab.experiments.lab_engine.flows import RUNNING
from mrclab.experiments.lab_engine.json_lines import JsonLines
from mrclab.experiments.lab_engine.rank_agent import RankJob
from mrclab.experiments.records import TransportTotals
from mrclab.fabric.training_job import IterationRecord
from mrclab.jsonrecords import from_json, to_json
from mrclab.lab.lab import Lab
from mrclab.processes import stop_process_groups

log = logging.getLogger(__name__)

START_AHEAD_S = 0.05  # an iteration starts this long after the coordinator says so
READY_BASE_S = 10.0  # the agents' start-up (imports, sockets, routes): on a loaded machine
READY_PER_RANK_S = 0.5


@dataclass
class JobOutcome:
    t0: float  # Unix time of the first iteration's start; records count from here
    iterations: list[IterationRecord] = field(default_factory=list)
    totals: list[TransportTotals] = field(default_factory=list)
    receivers: dict[str, dict] = field(default_factory=dict)  # host -> its agent's report
    stalled: bool = False
    incomplete: bool = False
    end: float = 0.0


class _Ranks:
    """The agents' connections, by rank."""

    def __init__(self, conns: dict[int, JsonLines]) -> None:
        self.conns = conns

    def tell(self, rank: int, message: dict) -> None:
        try:
            self.conns[rank].send(message)
        except OSError as exc:
            log.warning("rank %d not told %s: %s", rank, message, exc)

    def tell_all(self, message: dict) -> None:
        for rank in self.conns:
            self.tell(rank, message)

    def messages(self, timeout: float) -> list[tuple[int, dict]]:
        """What the ranks said within `timeout` seconds (rank, message); a rank whose
        agent closed its end says {"gone": True}."""
        rank_of = {lines.fileno(): rank for rank, lines in self.conns.items()}
        ready, _, _ = select.select(list(self.conns.values()), [], [], max(timeout, 0.0))
        out: list[tuple[int, dict]] = []
        for lines in ready:
            rank = rank_of[lines.fileno()]
            got = lines.receive()
            out += [(rank, {"gone": True})] if got is None else [(rank, m) for m in got]
        return out

    def close(self) -> None:
        for lines in self.conns.values():
            lines.close()


def run_job(lab: Lab, workdir: Path, plan: JobPlan, rank_job: RankJob, idle_timeout: float,
            on_action_error=log.warning) -> JobOutcome:
    """Run `plan` with one agent per rank; see the module's docstring. `rank_job`: what
    every rank is told, its `socket` filled in here."""
    workdir.mkdir(parents=True, exist_ok=True)
    # a Unix socket's path is at most 107 bytes: a results directory may be longer
    sockdir = Path(tempfile.mkdtemp(prefix="mrclab-job-"))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    procs: list[subprocess.Popen] = []
    outcome = JobOutcome(t0=time.time())
    ranks: _Ranks | None = None
    try:
        server.bind(str(sockdir / "job.sock"))
        server.listen(len(plan.hosts))
        rank_job.socket = str(sockdir / "job.sock")
        job_file = workdir / "job.json"
        job_file.write_text(json.dumps(to_json(rank_job)) + "\n")
        for rank, host in enumerate(plan.hosts):
            with open(workdir / f"rank-{rank:03d}-{host}.log", "w") as out:
                procs.append(RUNNING.add(lab.net.net.get(host).popen(
                    [sys.executable, "-m", "mrclab.experiments.lab_engine.rank_agent",
                     "--job", str(job_file), "--rank", str(rank),
                     "--json", str(workdir / f"rank-{rank:03d}-{host}.json")],
                    stdout=out, stderr=subprocess.STDOUT, text=True)))
        ranks = _accept(server, procs, workdir, plan)
        _iterations(ranks, plan, idle_timeout, outcome, on_action_error)
    except KeyboardInterrupt:
        outcome.incomplete = True
    finally:
        outcome.end = time.time()
        if ranks is not None:
            ranks.tell_all({"stop": True})
        _wait_agents(procs)
        if ranks is not None:
            ranks.close()
        server.close()
        for path in sockdir.iterdir():
            path.unlink()
        sockdir.rmdir()
    for rank, host in enumerate(plan.hosts):
        path = workdir / f"rank-{rank:03d}-{host}.json"
        if path.exists():
            outcome.receivers[host] = json.loads(path.read_text())
    return outcome


def _accept(server: socket.socket, procs: list[subprocess.Popen], workdir: Path,
            plan: JobPlan) -> _Ranks:
    """Every agent's connection, by the rank it says it is; ExperimentError naming an agent
    that exited, or the count of those not ready in time."""
    allowed = READY_BASE_S + READY_PER_RANK_S * len(plan.hosts)
    deadline = time.monotonic() + allowed
    pending: list[JsonLines] = []
    conns: dict[int, JsonLines] = {}
    while len(conns) < len(plan.hosts):
        for rank, proc in enumerate(procs):
            if rank not in conns and proc.poll() is not None:
                log_file = workdir / f"rank-{rank:03d}-{plan.hosts[rank]}.log"
                tail = log_file.read_text().strip().splitlines()[-1:] or ["no output"]
                raise ExperimentError(f"rank {rank} on {plan.hosts[rank]} exited: {tail[0]}")
        if time.monotonic() > deadline:
            raise ExperimentError(f"{len(plan.hosts) - len(conns)} rank agents not ready "
                                  f"after {allowed:.0f} s")
        ready, _, _ = select.select([server, *pending], [], [], 0.2)
        for source in ready:
            if source is server:
                pending.append(JsonLines(server.accept()[0]))
                continue
            got = source.receive()
            pending.remove(source)
            if got:  # an agent's first line says which rank it is
                conns[got[0]["ready"]] = source
            else:
                source.close()
    return _Ranks(conns)


def _iterations(ranks: _Ranks, plan: JobPlan, idle_timeout: float, outcome: JobOutcome,
                on_action_error) -> None:
    compute = plan.spec.compute_times(len(plan.hosts))
    for index in range(plan.spec.iterations):
        at = time.time() + START_AHEAD_S
        if index == 0:
            outcome.t0 = at
        start = at - outcome.t0
        record = IterationRecord(index, start, [start + c for c in compute[index]],
                                 [None] * len(plan.hosts),
                                 transfers=len(plan.schedule.transfers))
        outcome.iterations.append(record)
        outcome.totals.append(TransportTotals())
        ranks.tell_all({"start": index, "at": at})
        timers = [_timer(when + outcome.t0, action, record, outcome.t0, on_action_error)
                  for when, action in due_actions(plan, outcome.iterations[:-1], record)]
        limit = stall_limit(plan, record, idle_timeout) + outcome.t0
        try:
            _barrier(ranks, record, outcome, limit)
        finally:
            for timer in timers:
                timer.cancel()
        if record.end is None:
            outcome.stalled = True
            return


def _timer(when: float, action: IterationAction, record: IterationRecord, t0: float,
           on_error) -> threading.Timer:
    def act() -> None:
        try:
            record.events.append((time.time() - t0, action.action()))
        except Exception as exc:  # a failed fabric command must not stop the barrier
            on_error(f"iteration {record.index}: {exc}")
    timer = threading.Timer(max(0.0, when - time.time()), act)
    timer.daemon = True
    timer.start()
    return timer


def _barrier(ranks: _Ranks, record: IterationRecord, outcome: JobOutcome,
             limit: float) -> None:
    """Until every rank reported iteration `record.index` done, or `limit` (Unix time)."""
    t0 = outcome.t0
    while record.end is None and time.time() < limit:
        for rank, message in ranks.messages(min(0.5, limit - time.time())):
            if "gone" in message:
                raise ExperimentError(f"rank {rank} left the job (its agent exited)")
            if message.get("done") == record.index:
                record.compute_end[rank] = message["compute_end"] - t0
                record.finish[rank] = message["finish"] - t0
                record.lost += message["lost"]
                outcome.totals[-1].merge(from_json(TransportTotals, message["totals"]))
            elif "dst" in message:  # a sender gave up: its receiving rank stops waiting
                ranks.tell(message["dst"], message)
        if all(f is not None for f in record.finish):
            record.end = max(record.finish)


def _wait_agents(procs: list[subprocess.Popen]) -> None:
    """The agents linger a moment after `stop`, then write their reports and exit."""
    deadline = time.monotonic() + 10.0
    for proc in procs:
        try:
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    stop_process_groups([p for p in procs if p.poll() is None], grace=3.0)
