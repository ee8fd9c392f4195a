"""Run MRC transfers between Mininet hosts with the project's endpoint and collect their stats.

One receiver per destination host and one sender per flow, both the lean agent
(`mrclab.experiments.lab_engine.agent recv|send`) around the endpoint's data path, all started in their own
sessions and recorded, so that `kill_all` (run on success, failure and Ctrl-C alike)
leaves no process behind.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mrclab.endpoint.report import ReceiverReport, SenderReport
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.records import FlowRecord
from mrclab.experiments.transfer import Timeline
from mrclab.jsonrecords import from_json
from mrclab.lab.lab import Lab
from mrclab.processes import stop_process_group, stop_process_groups

log = logging.getLogger(__name__)

START_ALLOWANCE_S = 1.0  # senders are started this long before they all begin together
START_PER_SENDER_S = 0.15  # a lean agent takes ~0.2 CPU-s to start


class FlowError(Exception):
    """A transfer could not be run; one-line message."""


@dataclass
class FlowsOutcome:
    t0: float  # wall time of the common start
    flows: list[FlowRecord]
    receivers: dict[str, ReceiverReport]  # per destination host that wrote its report
    end: float = 0.0


@dataclass
class _Processes:
    procs: list[subprocess.Popen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, proc: subprocess.Popen) -> subprocess.Popen:
        with self.lock:
            self.procs.append(proc)
        return proc

    def kill_all(self) -> None:
        with self.lock:
            procs, self.procs = self.procs, []
        stop_process_groups(procs, grace=3.0)  # mnexec -d: each in its own session


RUNNING = _Processes()  # every endpoint process of this experiment process


def _python(*args: str) -> list[str]:
    return [sys.executable, *args]


def _dst_ips(lab: Lab, flow: Flow) -> str:
    nics = lab.fabric.hosts[flow.dst].nics
    chosen = [n for n in nics if flow.planes is None or n.plane in flow.planes]
    if not chosen:
        raise FlowError(f"{flow.dst} has no NIC on planes {flow.planes}")
    return ",".join(n.ip for n in chosen)


def _start_receiver(lab: Lab, workdir: Path, dst: str, count: int, timeout: float,
                    link_rate_bps: float) -> subprocess.Popen:
    proc = RUNNING.add(lab.net.net.get(dst).popen(
        _python("-m", "mrclab.experiments.lab_engine.agent", "recv", "--count", str(count),
                "--json", str(workdir / f"recv-{dst}.json"), "--timeout", str(timeout),
                "--link-rate", f"{link_rate_bps:g}"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    line = proc.stdout.readline() or ""
    if "listening" not in line:
        err = proc.stderr.read().strip().splitlines() if proc.poll() is not None else []
        raise FlowError(f"receiver on {dst} did not start: {(err or [line.strip()])[-1]}")
    return proc


def _start_sender(lab: Lab, workdir: Path, index: int, flow: Flow, start_at: float,
                  timeout: float) -> subprocess.Popen:
    stem = workdir / f"send-{index:02d}-{flow.src}"
    with open(f"{stem}.log", "w") as out:
        return RUNNING.add(lab.net.net.get(flow.src).popen(
            _python("-m", "mrclab.experiments.lab_engine.agent", "send", "--timeline",
                    f"{stem}.timeline.json", "--start-at", f"{start_at + flow.start:.6f}",
                    "--dst", _dst_ips(lab, flow), "--size", str(flow.size),
                    "--seed", str(flow.seed), "--json", f"{stem}.json",
                    "--timeout", str(timeout), *flow.send_args),
            stdout=out, stderr=subprocess.STDOUT, text=True))


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _run_schedule(schedule: Sequence[Timed], t0: float) -> None:
    for timed in sorted(schedule, key=lambda t: t.at):
        delay = t0 + timed.at - time.time()
        if delay > 0:
            time.sleep(delay)
        timed.action(t0)


def run_flows(lab: Lab, workdir: Path, flows: list[Flow], timeout: float,
              schedule: Sequence[Timed] = (), link_rate_bps: float = 0.0) -> FlowsOutcome:
    """Run `flows` together and wait for all; a thread runs `schedule` meanwhile.
    `link_rate_bps`: the receivers give resends turns at this rate (0: NACK at once).

    Senders begin together at t0 (+ each flow's `start`). A failed sender does not raise:
    its report says it did not complete, and the experiment reports it."""
    workdir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for flow in flows:
        counts[flow.dst] = counts.get(flow.dst, 0) + 1
    last_start = max(f.start for f in flows)
    receivers = {dst: _start_receiver(lab, workdir, dst, n, timeout + last_start + 10,
                                      link_rate_bps)
                 for dst, n in counts.items()}
    t0 = time.time() + START_ALLOWANCE_S + START_PER_SENDER_S * len(flows)
    senders = [_start_sender(lab, workdir, i, f, t0, timeout) for i, f in enumerate(flows)]
    helper = None
    if schedule:
        helper = threading.Thread(target=_run_schedule, args=(schedule, t0), name="schedule",
                                  daemon=True)
        helper.start()
    deadline = t0 + last_start + timeout + 15
    for proc in senders:
        try:
            proc.wait(timeout=max(1.0, deadline - time.time()))
        except subprocess.TimeoutExpired:
            log.warning("a sender overran its timeout; stopping it")
            stop_process_group(proc, grace=5.0)
    end = time.time()
    if helper is not None:
        helper.join(timeout=max(0.0, deadline - time.time()) + 5)
    # every sender has ended: nobody is left to answer (the receivers linger for senders
    # still trying, mrclab.endpoint.runner.DEFAULT_LINGER)
    stop_process_groups(receivers.values(), grace=5.0)
    results = []
    for i, flow in enumerate(flows):
        stem = workdir / f"send-{i:02d}-{flow.src}"
        summary = _read_json(Path(f"{stem}.json"))
        if summary is not None:
            sender = SenderReport.from_json(summary)
        else:
            tail = Path(f"{stem}.log").read_text().strip().splitlines()[-1:] \
                if Path(f"{stem}.log").exists() else []
            sender = SenderReport.failed(tail[0] if tail else "no summary written")
        timeline = _read_json(Path(f"{stem}.timeline.json"))
        results.append(FlowRecord(flow.src, flow.dst, flow.size, flow.start,
                                  list(flow.planes or ()), sender,
                                  from_json(Timeline, timeline) if timeline else Timeline()))
    recv = {dst: ReceiverReport.from_json(data) for dst in receivers
            if (data := _read_json(workdir / f"recv-{dst}.json")) is not None}
    with RUNNING.lock:
        RUNNING.procs = [p for p in RUNNING.procs if p.poll() is None]
    return FlowsOutcome(t0=t0, flows=results, receivers=recv, end=end)
