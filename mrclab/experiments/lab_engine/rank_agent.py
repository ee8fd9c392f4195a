"""`python -m mrclab.experiments.lab_engine.rank_agent --job FILE --rank N --json FILE`: one
rank of a training job, in its Mininet host.

The rank runs its own part of the collective's schedule with the pure job model
(`mrclab.fabric.training_job.CollectiveJob`, the one the simulator drives): its compute
phase ends, its sends start once their dependencies have arrived (at most `window` of them
unfinished), each a message of the endpoint's sender. Its transfers run on the endpoint's
`EndpointHost` (the simulator's hosts), on the event loop set from the wall clock and raw
sockets for NICs: one process sends to and receives from every peer at once, and a
connection's path state carries over between the messages to one peer.

The barrier is the coordinator's (`mrclab.experiments.lab_engine.job`), over a Unix socket
(a path, so it crosses network namespaces): it says when each iteration starts; the rank
reports when its part is done and when a sender of its gave up (the receiving rank is told,
and the job goes on with the loss in the record, as in the simulator). Messages are JSON
lines; times are Unix times.
"""

from __future__ import annotations

import argparse
import json
import random
import select
import signal
import socket
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from mrclab.endpoint.clock import EventLoop
from mrclab.endpoint.core.receiver import Message
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.host import EndpointHost, FlowSpec, HostFlow
from mrclab.endpoint.kernel_routes import RouteError, host_interfaces, resolve_plane
from mrclab.endpoint.netio import FrameAddress
from mrclab.endpoint.rawsocket import PortGuard, RawLink
from mrclab.endpoint.report import ReceiverReport
from mrclab.endpoint.runner import mss_for
from mrclab.experiments.job_transfers import JobTransfers
from mrclab.experiments.lab_engine.json_lines import JsonLines
from mrclab.experiments.transfer import LAB_IDLE_TIMEOUT_S, parse_send_args, transfer_config
from mrclab.fabric.collective import build_schedule
from mrclab.fabric.training_job import CollectiveJob, JobSpec
from mrclab.jsonrecords import from_json, to_json
from p4emu.cmdline import OneLineParser, UsageError, run_main

LINGER_S = 1.0  # after the last iteration: answer peers whose last ACKs were lost
MAX_WAIT_S = 0.05  # the longest select: a stop or a signal is seen this soon


@dataclass
class RankJob:
    """What every rank is told (the coordinator writes it as JSON)."""

    pattern: str
    ranks: int
    size: int
    slice: int
    spec: JobSpec
    hosts: list[str]  # rank i runs on hosts[i]
    addresses: list[list[str]]  # per rank, the IP of its NIC on each plane it uses
    send_args: dict[str, list[str]] = field(default_factory=dict)  # "src>dst" -> options
    socket: str = ""  # the coordinator's Unix socket
    link_rate_bps: float = 0.0  # the receivers pace the resends they ask for at this rate
    schedule_sha256: str = ""
    timeout_s: float = 600.0  # the whole job at most: the rank then exits


class _RawNic:
    """A raw socket as `EndpointHost`'s NIC: the lab's NICs are veths with no rate."""

    def __init__(self, link: RawLink) -> None:
        self.link = link

    def send(self, frame: bytes, urgent: bool = False, flow: object = None) -> None:
        self.link.send(frame)


class RankAgent:
    def __init__(self, job: RankJob, rank: int, control: JsonLines) -> None:
        self.job_file, self.rank, self.control = job, rank, control
        self.schedule = build_schedule(job.pattern, job.ranks, job.size, job.slice)
        if job.schedule_sha256 and self.schedule.digest() != job.schedule_sha256:
            raise ValueError(f"schedule {self.schedule.digest()} is not the coordinator's "
                             f"{job.schedule_sha256}")
        self.job = CollectiveJob(self.schedule, job.spec)
        self.ifaces = host_interfaces()
        self.links = [RawLink(iface) for iface in self.ifaces]
        self.guard = PortGuard()
        self.loop = EventLoop()
        self.loop.now = time.monotonic()
        self.wall_offset = time.time() - time.monotonic()
        seed = job.spec.seed * 7919 + rank
        self.host = EndpointHost(job.hosts[rank], self.loop,
                                 {i: _RawNic(link) for i, link in enumerate(self.links)},
                                 random.Random(seed), sample_interval=1.0,
                                 link_rate_bps=job.link_rate_bps, share_connections=True)
        self.transfers = JobTransfers(self.job, self._open, self.host.release)
        self.host.on_message = self._arrived
        self.host.on_flow_done = self._finished
        self.payload = memoryview(random.Random(seed).randbytes(max(
            (t.size for t in self.schedule.transfers), default=1)))
        self._paths: dict[int, tuple[list[tuple[int, FrameAddress]], SenderConfig]] = {}
        self._reported = -1  # the last iteration whose end this rank reported
        self.stopping = False
        self.stop_at: float | None = None

    # --- the job
    def _start_iteration(self, index: int, at_wall: float) -> None:
        if index != len(self.job.iterations):
            raise ValueError(f"told to start iteration {index}, expected "
                             f"{len(self.job.iterations)}")
        self.transfers.new_iteration()
        self.job.barrier_passed(self.loop.now)
        for when, rank in self.job.start_iteration(at_wall - self.wall_offset):
            if rank == self.rank:
                self.loop.at(when, self._compute_done)
        self.transfers.open_ahead([self.rank])

    def _compute_done(self) -> None:
        self.transfers.start(self.job.compute_done(self.rank, self.loop.now))
        self._check_done()

    def _open(self, tid: int, hold: bool) -> HostFlow:
        index = self.job.current.index
        t = self.schedule.transfers[tid]
        paths, cfg = self._paths_to(t.dst)
        spec = FlowSpec(self.job_file.hosts[t.src], self.job_file.hosts[t.dst], t.size)
        return self.host.add_flow(spec, paths, self.payload[:t.size],
                                  replace(cfg, nonce=self.transfers.nonce(tid),
                                          seed=index * len(self.schedule.transfers) + tid + 1),
                                  hold=hold)

    def _paths_to(self, rank: int) -> tuple[list[tuple[int, FrameAddress]], SenderConfig]:
        """Per plane, this host's NIC and the frames' addresses towards `rank`, and the
        sender's configuration for it (resolved once, from the kernel's routes)."""
        known = self._paths.get(rank)
        if known is None:
            planes = [resolve_plane(ip) for ip in self.job_file.addresses[rank]]
            paths = [(self.ifaces.index(p.iface),
                      FrameAddress.of(p.src_mac, p.next_hop_mac, p.src_ip, p.dst_ip))
                     for p in planes]
            key = f"{self.rank}>{rank}"
            args = parse_send_args(self.job_file.send_args.get(key, []))
            cfg = transfer_config(args, mss=mss_for(planes, None), planes=len(planes),
                                  seed=1, nonce=1, idle_timeout=LAB_IDLE_TIMEOUT_S)
            known = self._paths[rank] = (paths, cfg)
        return known

    def _arrived(self, msg: Message) -> None:
        self.transfers.arrived(msg, self.loop.now)
        self._check_done()

    def _finished(self, flow: HostFlow) -> None:
        done = self.transfers.finished(flow, self.loop.now)
        if done is None:
            return
        tid, ok = done
        if not ok:  # the receiving rank waits for it: the coordinator tells it
            self._tell({"lost": tid, "iteration": self.job.current.index,
                        "dst": self.schedule.transfers[tid].dst})
        self._check_done()

    def _check_done(self) -> None:
        record = self.job.current
        if record is None or record.index == self._reported or record.finish[self.rank] is None:
            return
        self._reported = record.index
        self._tell({"done": record.index, "rank": self.rank,
                    "compute_end": record.compute_end[self.rank] + self.wall_offset,
                    "finish": record.finish[self.rank] + self.wall_offset,
                    "lost": record.lost, "totals": to_json(self.transfers.totals[-1])})

    # --- the coordinator
    def _tell(self, message: dict) -> None:
        self.control.send(message)

    def _read_control(self) -> None:
        messages = self.control.receive()
        if messages is None:  # the coordinator is gone: nobody will start another iteration
            self.stopping = True
            return
        for message in messages:
            if "start" in message:
                self._start_iteration(message["start"], message["at"])
            elif "lost" in message:  # a transfer to this rank whose sender gave up
                self.transfers.released(message["iteration"], message["lost"], self.loop.now)
                self._check_done()
            elif "stop" in message:
                self.stop_at = time.monotonic() + LINGER_S

    # --- the loop
    def run(self) -> None:
        self._tell({"ready": self.rank})
        give_up = time.monotonic() + self.job_file.timeout_s
        socks: list = [*self.links, self.control]
        while not self.stopping:
            now = time.monotonic()
            if now >= give_up or (self.stop_at is not None and now >= self.stop_at):
                return
            due = self.loop.next_due()
            wait = MAX_WAIT_S if due is None else min(max(due - now, 0.0), MAX_WAIT_S)
            ready, _, _ = select.select(socks, [], [], wait)
            self.loop.now = max(self.loop.now, time.monotonic())
            for index, link in enumerate(self.links):
                if link in ready:
                    for frame in link.recv_batch():
                        self.host.receive(index, frame)
            if self.control in ready:
                self._read_control()
            self.loop.run(max(self.loop.now, time.monotonic()))

    def close(self) -> None:
        for link in self.links:
            link.close()
        self.guard.close()

    def report(self) -> dict:
        return {"rank": self.rank, "iterations": len(self.job.iterations),
                "receiver": ReceiverReport(stats=self.host.receiver.stats,
                                           garbage=self.host.garbage).to_json(),
                "local_send_drops": sum(link.send_drops for link in self.links)}


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM from the coordinator: end as Ctrl-C would, reporting


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="rank_agent", description=__doc__.splitlines()[0])
    parser.add_argument("--job", type=Path, required=True)
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--json", type=Path, required=True)
    return run_main("rank_agent", lambda: _run(parser.parse_args(argv)),
                    {(UsageError, RouteError, OSError, ValueError, KeyError, TypeError): 2})


def _run(args: argparse.Namespace) -> int:
    job = from_json(RankJob, json.loads(args.job.read_text()))
    if not 0 <= args.rank < job.ranks:
        raise ValueError(f"--rank {args.rank}: ranks are 0..{job.ranks - 1}")
    signal.signal(signal.SIGTERM, _interrupt)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as control:
        control.connect(job.socket)
        agent = RankAgent(job, args.rank, JsonLines(control))
        try:
            agent.run()
        finally:  # a report however the job ended: the coordinator reads the receiver's
            agent.close()
            args.json.write_text(json.dumps(agent.report()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
