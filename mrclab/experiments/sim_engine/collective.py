"""A training job on the simulator: `CollectiveJob` (mrclab.fabric.training_job) driven by
the event loop, each transfer one message of the endpoint's sender and receiver.

The job's decisions are the pure job model's; this module does what the lab's rank agents
do with sockets: start a sender when the job says so, tell the job when a receiver has a
whole message (`EndpointHost.on_message`) and when a sender is finished (`EndpointHost.on_flow_done`),
and start the next iteration at the barrier. Transfers are kept out of `SimNetwork.flows`
and forgotten once finished: a job moves hundreds of thousands of messages.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from mrclab.endpoint.core.receiver import Message
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.host import FlowSpec, HostFlow
from mrclab.endpoint.report import ReceiverReport
from mrclab.experiments import plans
from mrclab.experiments.collective_plan import IterationAction, JobPlan, due_actions, stall_limit
from mrclab.experiments.job_transfers import JobTransfers
from mrclab.experiments.records import CollectiveIteration, JobRecord
from mrclab.experiments.sim_engine.virtual_records import VIRTUAL_TIME, port_counters
from mrclab.fabric.training_job import CollectiveJob

if TYPE_CHECKING:
    from mrclab.controller.next_hops import SourceRoutes
    from mrclab.experiments.plans import Flow
    from mrclab.fabric.model import Fabric
    from mrclab.sim.network import SimNetwork


class JobSession(Protocol):
    """What a job asks of its session (`session.SimSession`, which runs jobs through
    `run_job`: named by what is used, so that the two modules do not import each other)."""

    fabric: Fabric
    source_routes: SourceRoutes
    interrupted: bool
    packet_hops: int
    wall_s: float
    note: Callable[[str], None]
    spray: str

    def new_network(self) -> SimNetwork: ...

    def sender_figures(self, net: SimNetwork) -> tuple[dict[str, float] | None, float]: ...

    def sender_config(self, net: SimNetwork, name: str, flow: Flow
                      ) -> tuple[list[int], SenderConfig]: ...

REPORT_EVERY_S = 5.0  # wall seconds between progress lines
PROGRESS_STEP_S = 20e-6  # virtual seconds between looks at the wall clock


class _Driver:
    def __init__(self, session: JobSession, name: str, plan: JobPlan) -> None:
        self.session, self.name, self.plan = session, name, plan
        self.net: SimNetwork = session.new_network()
        self.job = CollectiveJob(plan.schedule, plan.spec)
        self.transfers = JobTransfers(self.job, self._open, self._release)
        self.idle_timeout = session.sender_figures(self.net)[1]
        self._configs: dict[tuple[str, str], SenderConfig] = {}
        self.stop = False
        self.stalled = False
        self._next_pending = False
        for host in set(plan.hosts):
            sim = self.net.hosts[host]
            sim.on_message = self._arrived
            sim.on_flow_done = self._finished
            sim.share_connections = True

    # --- the job's iterations
    def begin(self) -> None:
        self.net.loop.at(0.0, self._start_iteration)

    def _start_iteration(self) -> None:
        loop = self.net.loop
        self._next_pending = False
        for when, rank in self.job.start_iteration(loop.now):
            loop.at(when, self._compute_done, rank)
        record = self.job.current
        self.transfers.new_iteration()
        self.transfers.open_ahead(range(self.plan.schedule.ranks))
        for when, action in due_actions(self.plan, self.job.iterations[:-1], record):
            loop.at(when, self._act, action)
        loop.at(stall_limit(self.plan, record, self.idle_timeout), self._check_stall,
                record.index)

    def _act(self, action: IterationAction) -> None:
        """Do `action`; recorded in the iteration running (a later one when its own
        collective was over sooner than expected)."""
        self.job.note(self.net.loop.now, action.action())

    def _check_stall(self, index: int) -> None:
        if self.job.running and self.job.current.index == index:
            self.stalled = self.stop = True

    def _compute_done(self, rank: int) -> None:
        self.transfers.start(self.job.compute_done(rank, self.net.loop.now))

    def _after_event(self) -> None:
        if self.job.current.end is None or self._next_pending:
            return
        if self.job.done:
            self.stop = True
        else:  # the barrier: the next iteration's compute begins now
            self._next_pending = True
            self.net.loop.at(self.net.loop.now, self._start_iteration)

    # --- transfers
    def _config(self, src: str, dst: str) -> SenderConfig:
        """The sender's figures for one pair of hosts (its source routes in `source`)."""
        cfg = self._configs.get((src, dst))
        if cfg is None:
            flow = plans.Flow(src, dst, 1, seed=0)
            if self.session.spray == "source":
                flow = plans.with_source_routes(self.session.source_routes, [flow])[0]
            cfg = self._configs[(src, dst)] = self.session.sender_config(self.net, self.name,
                                                                          flow)[1]
        return cfg

    def _open(self, tid: int, hold: bool) -> HostFlow:
        t = self.plan.schedule.transfers[tid]
        src, dst = self.plan.hosts[t.src], self.plan.hosts[t.dst]
        cfg = self._config(src, dst)
        serial = self.job.current.index * len(self.plan.schedule.transfers) + tid
        seed = self.plan.spec.seed * 1_000_003 + serial
        spec = FlowSpec(src, dst, t.size, seed=seed, routes=cfg.routes)
        flow = self.net.add_flow(spec, replace(cfg, nonce=self.transfers.nonce(tid)),
                                 track=False, hold=hold)
        assert flow is not None  # a flow starting now
        return flow

    def _release(self, flow: HostFlow) -> None:
        self.net.hosts[flow.spec.src].release(flow)

    def _arrived(self, msg: Message) -> None:
        self.transfers.arrived(msg, self.net.loop.now)
        self._after_event()

    def _finished(self, flow: HostFlow) -> None:
        if self.transfers.finished(flow, self.net.loop.now) is not None:
            self._after_event()

    # --- running
    def run(self) -> bool:
        """Until the job is over, has stalled, or `timeout_s`; True when Ctrl-C cut it."""
        loop, deadline = self.net.loop, self.plan.timeout_s
        last_note = time.perf_counter()
        # short enough for a progress line every few seconds even on a loaded k=8 fabric
        step = min(deadline / 200, self.plan.ideal_s / 4, PROGRESS_STEP_S)
        try:
            while loop.now < deadline and not self.stop:
                loop.run(min(deadline, loop.now + step), lambda: self.stop)
                if time.perf_counter() - last_note >= REPORT_EVERY_S:
                    last_note = time.perf_counter()
                    record = self.job.current
                    self.session.note(
                        f"{self.name}: virtual {loop.now * 1e6:,.0f} us, iteration "
                        f"{record.index + 1}/{self.plan.spec.iterations}, "
                        f"{self.net.packet_hops():,} packet-hops")
        except KeyboardInterrupt:
            return True
        if not self.job.done and not self.stalled:  # out of time: the iteration stalled
            self.stalled = True
        return False


def run_job(session: JobSession, name: str, plan: JobPlan) -> JobRecord:
    if session.interrupted:
        return JobRecord(name, 0.0, 0.0, replace(VIRTUAL_TIME), list(plan.hosts),
                         incomplete=True)
    started = time.perf_counter()
    try:
        driver = _Driver(session, name, plan)
    except KeyboardInterrupt:  # while the network was being built
        session.interrupted = True
        return JobRecord(name, 0.0, 0.0, replace(VIRTUAL_TIME), list(plan.hosts),
                         incomplete=True)
    driver.begin()
    interrupted = driver.run()
    session.interrupted |= interrupted
    net = driver.net
    wall = time.perf_counter() - started
    session.wall_s += wall
    session.packet_hops += net.packet_hops()
    net.controller.stop_probing()
    iterations = [CollectiveIteration(record, totals)
                  for record, totals in zip(driver.job.iterations, driver.transfers.totals,
                                                    strict=True)]
    receivers = {h.name: ReceiverReport(stats=replace(h.receiver.stats))
                 for h in net.hosts.values() if h.receiver.stats.data_packets}
    return JobRecord(name, 0.0, net.loop.now, replace(VIRTUAL_TIME), list(plan.hosts),
                     iterations, receivers, port_counters(net),
                     list(net.controller.events),
                     {"wall_s": round(wall, 3), "packet_hops": net.packet_hops(),
                      "schedule_sha256": plan.schedule.digest()},
                     stalled=driver.stalled, incomplete=interrupted)
