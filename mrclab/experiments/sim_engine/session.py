"""The simulated fabric as an experiment sees it: the same methods as the lab's
`mrclab.experiments.lab_engine.session.Session`, answered in virtual time by `simulator.SimNetwork`.

Each traffic phase runs on a fabric built afresh from the setup (switches programmed by the
controller at t = 0, the spray mode and thresholds of the moment), so phases cannot leak
queues or state into each other; its records are the lab's (`mrclab.experiments.records`: the
endpoint's sender report and the agent's timeline), so every experiment's analysis reads
both engines alike. Times in the records are virtual seconds from 0.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property, partial
from pathlib import Path

from mrclab.controller.next_hops import SourceRoutes
from mrclab.endpoint.core.sender_config import EMULATED_MAX_CWND, SenderConfig
from mrclab.endpoint.host import FlowSpec
from mrclab.endpoint.kernel_routes import Plane
from mrclab.endpoint.report import ReceiverReport, SenderReport
from mrclab.endpoint.runner import sender_report
from mrclab.experiments import flowstats, plans
from mrclab.experiments.collective_plan import JobPlan
from mrclab.experiments.config import ExperimentError, Setup
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.records import (
    FabricCounters,
    FlowRecord,
    JobRecord,
    PhaseRecord,
)
from mrclab.experiments.sim_engine.virtual_records import VIRTUAL_TIME, port_counters
from mrclab.experiments.transfer import (
    LAB_IDLE_TIMEOUT_S,
    TimelineSender,
    parse_send_args,
    transfer_config,
)
from mrclab.fabric.model import Fabric
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.sim.links import LinkModel, LinkState
from mrclab.sim.network import SimNetwork, SimSettings

log = logging.getLogger(__name__)

# DCTCP's bound on its gain, 1.386 / sqrt(2 (BDP + K)), at 100 Gb/s (BDP ~43 packets of
# 4 KiB, K = 4 to 8): 0.14; the lab's 1/4 fits its ~6 packets in flight
DCTCP_GAIN = 1 / 8
# alpha's prior: 0, averaged in at the gain. All of a permutation's flows start at once at a
# BDP, so their first window collides and is marked more than any later: replacing the
# prior by it (the lab's way) cut every window by a third or more for several RTTs
DCTCP_INIT_ALPHA = 0.0
SAMPLES_PER_FLOW = 200  # timeline samples over a flow's ideal duration
IDLE_TIMEOUT_RTOS = 200  # a sender gives up after this many RTO floors of silence (4 ms)
SETTLE_VERDICTS = 2  # wait_reconvergence: at most the time of this many verdicts
REPORT_EVERY_S = 5.0  # wall seconds between progress lines within a phase
# a simulated run is faithful by construction: nothing of the machine's enters its figures
class SimSession:
    def __init__(self, fabric: Fabric, setup: Setup, workdir: Path,
                 progress: Callable[[str], None],
                 note: Callable[[str], None] | None = None) -> None:
        self._fabric = fabric
        self.setup = setup
        self.workdir = workdir
        self.progress = progress  # called with each phase's name as it starts
        self.note = note or (lambda line: None)
        self._spray = "ecmp"
        self._thresholds = (setup.trim_threshold, setup.ecn_threshold)
        self._net: SimNetwork | None = None  # the phase running, or the last one
        self._past_events: list[Reconvergence] = []  # the controller's, of the phases before
        self.packet_hops = 0
        self.wall_s = 0.0
        self.interrupted = False  # Ctrl-C: later phases do not run (their flows fail)

    @property
    def fabric(self) -> Fabric:
        return self._fabric

    @cached_property
    def source_routes(self) -> SourceRoutes:
        """The fabric's source routes (spray mode `source`), searched once per session."""
        return SourceRoutes(self.fabric)

    # --- configuration (applies to the next phase's fabric) ------------------------------
    def set_spray(self, mode: str) -> None:
        self._spray = mode

    @property
    def spray(self) -> str:
        return self._spray

    def run_at(self, setup: Setup) -> None:
        """The next phases run at `setup`'s link rates."""
        self.setup = setup

    def set_thresholds(self, trim: int, ecn: int, spray: str) -> float:
        self._thresholds = (trim, ecn)
        self._spray = spray
        return 0.0

    def settings(self) -> SimSettings:
        s = self.setup
        return SimSettings(link_rate_bps=s.rate_bps,
                           fabric_rate_bps=s.fabric_rate_bps or s.rate_bps,
                           link_delay_s=s.link_delay_s,
                           mtu=s.mtu, queue_depth=s.queue_depth,
                           trim_threshold=self._thresholds[0],
                           ecn_threshold=self._thresholds[1], spray=self._spray,
                           probe_interval_s=s.probe_interval, miss_limit=s.miss_limit,
                           seed=s.seed,
                           link_model=LinkModel.VETH if s.figures == "lab" else LinkModel.WIRE,
                           pace_resends=s.pace_resends, pipeline=s.pipeline)

    # --- observation --------------------------------------------------------------------
    def counters(self, switches: list[str] | None = None) -> FabricCounters:
        """Per switch and port, what the fabric of the phase running (or last run) carried."""
        if self._net is None:
            return {}
        counters = port_counters(self._net)
        return {k: v for k, v in counters.items() if switches is None or k in switches}

    def reconvergence(self) -> list[Reconvergence]:
        """The controller's link verdicts and rewrites of every phase so far (virtual times
        from each phase's start), as the lab's controller keeps them for its whole life."""
        current = [] if self._net is None else self._net.controller.events
        return self._past_events + list(current)

    def wait_reconvergence(self, count: int) -> bool:
        """Let the phase's fabric run on (no traffic but the probes) until the controller has
        reported `count` verdicts in all, or for as long as it takes to report two."""
        net = self._net
        if net is None:
            return False
        limit = net.loop.now + 2 * SETTLE_VERDICTS * net.settings.probe_interval_s \
            * net.settings.miss_limit + 2 * net.settings.write_delay_s
        past = len(self._past_events)

        def reported() -> bool:  # checked after every event: counted, not converted
            return past + len(net.controller.events) >= count
        net.loop.run(limit, reported)
        return reported()

    def core_links(self) -> list[tuple[str, int, str, int]]:
        return plans.core_links(self.fabric)

    def wait_links_up(self, timeout: float = 20.0) -> bool:
        return True  # every phase starts on a fabric built afresh

    def now(self) -> float:
        """The running phase's virtual time (its flows start at 0)."""
        return 0.0 if self._net is None else self._net.loop.now

    # --- actions (from a phase's schedule) ----------------------------------------------
    def set_link(self, a: str, b: str, up: bool, admin: bool = False) -> float:
        """Fail (gray, as the lab's nftables failure; `admin`: ports down, which the
        switches' `watch_port` groups see at once) or restore a link of the running
        phase; returns the virtual time."""
        return self.set_links([(a, b)], up, admin)

    def set_links(self, links: list[tuple[str, str]], up: bool, admin: bool = False) -> float:
        net = self._net
        if net is None:
            raise ExperimentError("set_link: no phase is running")
        down = LinkState.ADMIN_DOWN if admin else LinkState.GRAY
        for a, b in links:
            net.set_link(a, b, LinkState.UP if up else down)
        return net.loop.now

    # --- traffic ------------------------------------------------------------------------
    def run_flows(self, name: str, plan: list[Flow], timeout: float,
                  schedule: Sequence[Timed] = ()) -> PhaseRecord:
        """Run `plan` together from t0 = 0, and `schedule` at its virtual times; returns the
        records `live.Session.run_flows` returns. `timeout`: virtual seconds at most (flows
        that have not finished by then fail, as a sender past its `--timeout`)."""
        if not self.interrupted:
            try:
                net, flows, deadline, pending = self._prepare(name, plan, timeout, schedule)
            except KeyboardInterrupt:  # Ctrl-C or SIGTERM while the network was being built
                self.interrupted = True
        if self.interrupted:
            return PhaseRecord(name, 0.0, 0.0, replace(VIRTUAL_TIME),
                               [self._not_run(f) for f in plan], incomplete=True)
        started = time.perf_counter()
        interrupted = self._run(net, name, len(plan), deadline, pending)
        self.interrupted |= interrupted
        self.wall_s += time.perf_counter() - started
        self.packet_hops += net.packet_hops()
        records = self._records(net, flows)
        if (why := flowstats.nothing_transferred(records)) is not None and not interrupted:
            raise ExperimentError(f"{name}: {why}")
        receivers = {h.name: ReceiverReport(stats=replace(h.receiver.stats))
                     for h in net.hosts.values() if h.receiver.stats.data_packets}
        return PhaseRecord(name, 0.0, net.loop.now, replace(VIRTUAL_TIME), records, receivers,
                           port_counters(net),
                           {"wall_s": round(time.perf_counter() - started, 3),
                            "packet_hops": net.packet_hops()},
                           incomplete=interrupted)

    def _prepare(self, name: str, plan: list[Flow], timeout: float, schedule: Sequence[Timed]
                 ) -> tuple[SimNetwork, list[tuple[Flow, FlowSpec]], float, list[Timed]]:
        """The phase's network, programmed, with its flows and `schedule` added: (network,
        (flow, spec) pairs, virtual deadline, timed events not yet run)."""
        if self._spray == "source":
            plan = plans.with_source_routes(self.source_routes, plan)
        net = self.new_network()
        pending = list(schedule)
        for timed in pending:
            net.loop.at(timed.at, self._scheduled, timed, pending)
        configured = [self.sender_config(net, name, flow) for flow in plan]
        # a flow over P planes sends at P link rates: its timeline is sampled over that time
        ideal = max(f.size * 8 / (net.settings.link_rate_bps * len(planes))
                    for f, (planes, _) in zip(plan, configured, strict=True))
        interval = max(ideal / SAMPLES_PER_FLOW, 1e-7)
        deadline = min(timeout, max([f.start for f in plan] + [t.at for t in schedule])
                       + 50 * ideal + 0.002)
        flows: list[tuple[Flow, FlowSpec]] = []
        for flow, (planes, cfg) in zip(plan, configured, strict=True):
            spec = FlowSpec(flow.src, flow.dst, flow.size, start=flow.start,
                            planes=tuple(planes), seed=flow.seed, routes=cfg.routes)
            net.add_flow(spec, cfg, sender_class=partial(TimelineSender, interval=interval))
            flows.append((flow, spec))
        return net, flows, deadline, pending

    def new_network(self) -> SimNetwork:
        """The next phase's fabric, built afresh and programmed at t = 0."""
        if self._net is not None:
            self._past_events += self._net.controller.events
        net = SimNetwork(self.fabric, self.settings())
        self._net = net
        net.start()
        return net

    def sender_figures(self, net: SimNetwork) -> tuple[dict[str, float] | None, float]:
        """(the datacenter senders' figures for `transfer_config`, or None for the lab
        agent's with --figures lab; the senders' idle timeout)."""
        min_rto, initial_rto, max_rto = net.settings.rto_timers()
        fabric: dict[str, float] | None = {
            "min_rto": min_rto, "initial_rto": initial_rto, "max_rto": max_rto,
            "init_cwnd": float(net.settings.bdp_packets(self.fabric.max_switch_hops())),
            "dctcp_gain": DCTCP_GAIN, "dctcp_init_alpha": DCTCP_INIT_ALPHA,
            "window_follows_planes": True, "delay_target": net.settings.queue_delay_target(),
            "fast_delay": net.settings.fast_increase_delay(), "echo_window": True,
            "resume_at_init_cwnd": True,
            "recycle_marked": True}
        if self.setup.figures == "lab":  # the lab agent's senders: its timers and window
            return None, LAB_IDLE_TIMEOUT_S
        return fabric, IDLE_TIMEOUT_RTOS * min_rto

    def sender_config(self, net: SimNetwork, name: str, flow: Flow
                      ) -> tuple[list[int], SenderConfig]:
        """(the planes `flow` runs over, its sender's configuration: its options as the
        lab's agent reads them, the engine's figures); ExperimentError naming it."""
        fabric, idle_timeout = self.sender_figures(net)
        try:
            args = parse_send_args(flow.send_args)
            planes = self._planes(flow)
            return planes, transfer_config(
                args, mss=net.settings.mss, planes=len(planes), seed=flow.seed,
                nonce=flow.seed, idle_timeout=idle_timeout,
                fabric=fabric and _across(fabric, len(planes)))
        except ValueError as exc:
            raise ExperimentError(f"{name}: flow {flow.label}: {exc}") from None

    def run_job(self, name: str, plan: JobPlan) -> JobRecord:
        """Run a training job (`mrclab.experiments.sim_engine.collective`) on a fabric
        built afresh; its record. Ctrl-C ends it where it is (the iterations done are
        kept) and skips every later phase."""
        from mrclab.experiments.sim_engine.collective import run_job

        return run_job(self, name, plan)

    @staticmethod
    def _not_run(flow: Flow) -> FlowRecord:
        return FlowRecord(flow.src, flow.dst, flow.size, flow.start, list(flow.planes or ()),
                          SenderReport.failed("not run (interrupted)"))

    def _planes(self, flow: Flow) -> list[int]:
        src, dst = self.fabric.hosts[flow.src], self.fabric.hosts[flow.dst]
        shared = [n.plane for n in src.nics if dst.nic_on_plane(n.plane) is not None]
        chosen = [p for p in shared if flow.planes is None or p in flow.planes]
        if not chosen:
            raise ValueError(f"{flow.dst} has no NIC on planes {flow.planes}")
        return chosen

    @staticmethod
    def _scheduled(timed: Timed, pending: list[Timed]) -> None:
        pending.remove(timed)
        timed.action(0.0)

    def _run(self, net: SimNetwork, name: str, expected: int, deadline: float,
             pending: list[Timed]) -> bool:
        """Run until every flow is done and the schedule has run, or `deadline`; True when
        Ctrl-C cut it short."""
        def finished() -> bool:
            return not pending and net.flows_done(expected)
        last_note = time.perf_counter()
        step = deadline / 100
        try:
            while net.loop.now < deadline and not finished():
                net.loop.run(min(deadline, net.loop.now + step), finished)
                if time.perf_counter() - last_note >= REPORT_EVERY_S:
                    last_note = time.perf_counter()
                    done = sum(f.done for f in net.flows)
                    self.note(f"{name}: virtual {net.loop.now * 1e6:,.0f} us, "
                              f"{done}/{expected} flows done, {net.packet_hops():,} "
                              "packet-hops")
        except KeyboardInterrupt:
            return True
        return False

    def _records(self, net: SimNetwork, flows: list[tuple[Flow, FlowSpec]]
                 ) -> list[FlowRecord]:
        out = []
        for flow, spec in flows:
            sim = next((f for f in net.flows if f.spec is spec), None)
            if sim is None:  # interrupted before it began
                out.append(self._not_run(flow))
                continue
            sender = sim.sender
            if not sender.done and not sender.failed:
                sender.failed = True
                sender.error = f"transfer incomplete after {net.loop.now:g} s (virtual)"
            planes = [self._plane(flow.src, flow.dst, p) for p in sim.spec.planes or ()]
            report = sender_report(sender, planes, net.loop.now - sender.start_time,
                                   hashlib.sha256(sender.data).hexdigest())
            out.append(FlowRecord(flow.src, flow.dst, flow.size, flow.start,
                                  list(flow.planes or ()), report, sender.timeline()))
        return out

    def _plane(self, src: str, dst: str, plane: int) -> Plane:
        host = self.fabric.hosts[src]
        a, b = host.nic_on_plane(plane), self.fabric.hosts[dst].nic_on_plane(plane)
        return Plane(iface=host.interface(a.index), src_ip=a.ip, src_mac=a.mac, dst_ip=b.ip,
                     next_hop_mac="", mtu=self.setup.mtu)



def _across(fabric: dict[str, float], planes: int) -> dict[str, float]:
    """A sender's window figures over `planes` NICs: one window covers them all, so it
    starts at a BDP per plane and may grow to several. It starts without slow start
    (`init_ssthresh`): a first window of a whole BDP has nothing left to probe for, and
    doubling it put the excess in the queues, whose marks then halved it (DCTCP's first
    cut, alpha = 1) with ~10 RTTs of additive increase to win it back."""
    first = fabric["init_cwnd"] * planes
    return {**fabric, "init_cwnd": first, "init_ssthresh": first,
            "max_cwnd": max(EMULATED_MAX_CWND, 4 * first)}
