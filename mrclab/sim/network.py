"""A whole fabric in virtual time: switches, hosts, wires and the controller, built from a
`mrclab.fabric` spec, with flows and failures scheduled on one event loop.

    net = SimNetwork(parse_spec("fattree:k=4"), SimSettings(spray="ev"))
    net.start()
    net.add_flow(FlowSpec("h1", "h16", 1 << 20))
    net.fail_link("p0c1", "p0a1", at=0.001)
    net.run_flows(max_time=1.0)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import Routing, compute_next_hops
from mrclab.controller.probe_liveness import VerdictFactory
from mrclab.controller.switch_state import ForwardingPolicy
from mrclab.endpoint.clock import EventLoop
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.host import EndpointHost, FlowSpec, HostFlow, Nic
from mrclab.endpoint.netio import FrameAddress
from mrclab.endpoint.wire import ETH_IP_UDP_LEN, HEADER_LEN, payload_fit
from mrclab.fabric.model import Fabric, HostNode, Link
from mrclab.fabric.spec import parse_duration
from mrclab.fabric.spray import SPRAY_MODES
from mrclab.sim.controller import SimController
from mrclab.sim.fabric_core import FABRICS, NativeWire, default_fabric, native_loop, nic_queue
from mrclab.sim.links import LinkModel, LinkState, Wire
from mrclab.sim.program import CompiledProgram, compiled
from mrclab.sim.switch import SimSwitch
from p4emu.runtime.port_states import PortStates
from p4emu.switch.native_traffic_manager import TRAFFIC_MANAGERS
from p4emu.switch.program import PIPELINES
from p4emu.switch.traffic_manager import QueueSettings

RANDOM_CHUNK = 1 << 27  # random.randbytes fails from 2**28 bytes on (a C int of bits)


def random_bytes(size: int, chunk: int = RANDOM_CHUNK) -> bytes:
    """`size` pseudo-random bytes, the same for the same size (seeded by it); in chunks,
    so a transfer of 8 planes at 100 Gb/s (hundreds of MB) is no exception."""
    rng = random.Random(size)
    if size <= chunk:
        return rng.randbytes(size)
    chunks = [rng.randbytes(chunk) for _ in range(size // chunk)]
    chunks.append(rng.randbytes(size % chunk))
    return b"".join(chunks)


@dataclass(frozen=True)
class SimSettings:
    """Datacenter defaults; every figure a switch or NIC uses comes from here (or from the
    spec's per-link bw=/delay=/loss=, which take precedence)."""

    link_rate_bps: float = 100e9
    fabric_rate_bps: float | None = None  # switch-to-switch links, when not link_rate_bps
    link_delay_s: float = 1e-6  # per link, propagation
    mtu: int = 4096
    queue_depth: int = 16  # packets per egress data queue (64 KiB of 4 KiB frames)
    trim_threshold: int = 8  # packets; 0: never trim
    ecn_threshold: int = 4  # packets; 0: never mark
    spray: str = "ev"
    probe_interval_s: float = 100e-6
    miss_limit: int = 3
    write_delay_s: float = 1e-3  # a controller's write reaching a switch
    seed: int = 1
    sample_interval_s: float = 10e-6  # flows' progress samples
    link_model: LinkModel = LinkModel.WIRE  # VETH: the lab's links (mrclab.sim.links)
    # receivers give each trimmed packet's resend a turn at their link's rate
    # (`mrclab.endpoint.core.receiver.ResendPacer`); off: every NACK asks for it at once
    pace_resends: bool = True
    # the switches' P4 pipeline: auto (p4emu's compiled C one where the program allows,
    # else the generated Python one), native or python (`p4emu.switch.program.ir_loader`)
    pipeline: str = "auto"
    # their traffic manager: auto (compiled with a compiled pipeline, where it builds),
    # native or python (`p4emu.switch.native_traffic_manager.traffic_manager_class`); records the same
    traffic_manager: str = "auto"
    # the event loop, wires and switches' data path: native (the C loop of
    # `mrclab.sim.fabric_core`), python (the reference) or auto; records the same
    fabric: str = field(default_factory=default_fabric)

    def __post_init__(self) -> None:
        checks = [(self.link_rate_bps > 0, f"link rate {self.link_rate_bps:g} b/s"),
                  (self.fabric_rate_bps is None or self.fabric_rate_bps > 0,
                   f"fabric link rate {self.fabric_rate_bps} b/s"),
                  (self.link_delay_s >= 0, f"link delay {self.link_delay_s:g} s"),
                  (payload_fit(self.mtu) > 0 if self.mtu >= 100 else False, f"MTU {self.mtu}"),
                  (self.queue_depth >= 1, f"queue depth {self.queue_depth}"),
                  (self.trim_threshold >= 0 and self.ecn_threshold >= 0, "thresholds < 0"),
                  (self.spray in SPRAY_MODES, f"spray mode {self.spray!r}"),
                  (self.probe_interval_s > 0 and self.miss_limit >= 1, "probe settings"),
                  (self.sample_interval_s > 0, f"sample interval {self.sample_interval_s:g}"),
                  (self.pipeline in PIPELINES, f"pipeline {self.pipeline!r}"),
                  (self.traffic_manager in TRAFFIC_MANAGERS,
                   f"traffic manager {self.traffic_manager!r}"),
                  (self.fabric in FABRICS, f"fabric {self.fabric!r}")]
        for ok, what in checks:
            if not ok:
                raise ValueError(f"simulator: bad {what}")

    @property
    def mss(self) -> int:
        return payload_fit(self.mtu)

    @property
    def header_frame(self) -> int:
        return ETH_IP_UDP_LEN + HEADER_LEN

    def rto_timers(self) -> tuple[float, float, float]:
        """Senders' (min, initial, max) RTO for these links: tens of microseconds where
        the lab's are 0.1 s, so that a loss costs a few RTTs here as there."""
        return max(10e-6, 20 * self.link_delay_s), max(50e-6, 50 * self.link_delay_s), 0.01

    def base_rtt(self, switch_hops: int) -> float:
        """Round trip of a full DATA frame and its ACK across `switch_hops` switches with
        every queue empty."""
        links = switch_hops + 1
        frame, ack = self.mtu + 14, self.header_frame
        return links * (2 * self.link_delay_s + (frame + ack) * 8 / self.link_rate_bps)

    def queue_delay_target(self) -> float:
        """The queueing a source-routed sender's window grows into at once
        (`DctcpWindow.delay_target`): one data queue at the trim threshold, in full frames
        at the link rate (32 frames of 4 KiB at 100 Gb/s: 10.7 us)."""
        return self.trim_threshold * (self.mtu + 14) * 8 / self.link_rate_bps

    def fast_increase_delay(self) -> float:
        """The queueing under which a datacenter sender's ACK counts as meeting no queue
        (`DctcpWindow.fast_delay`): 3 full frames at the link rate (1 us at 100 Gb/s, UEC
        NSCC's figure for its fast increase) and the 1 us tick of the `ts` its RTTs are
        measured with."""
        return 3 * (self.mtu + 14) * 8 / self.link_rate_bps + 1e-6

    def bdp_packets(self, switch_hops: int) -> int:
        """Full frames one link carries in a base RTT: the window a datacenter sender
        starts with (as NDP and UEC do), where the lab's start at 16 packets."""
        return max(1, math.ceil(self.base_rtt(switch_hops) * self.link_rate_bps
                                / ((self.mtu + 14) * 8)))

    def policy(self) -> ForwardingPolicy:
        return ForwardingPolicy(SPRAY_MODES[self.spray], self.trim_threshold,
                                self.ecn_threshold)

    def queues(self) -> QueueSettings:
        # the high-priority queue (trimmed headers, ACKs) holds as many bytes as the data
        # queue, as the lab sets it (--high-priority-depth)
        high = max(1, self.queue_depth * (self.mtu + 14) // self.header_frame)
        return QueueSettings(self.queue_depth, 0.0, self.link_rate_bps, 2, {1: high})


def _seconds(text: str | None, default: float) -> float:
    return default if text is None else parse_duration(text)


class SimNetwork:
    def __init__(self, fabric: Fabric, settings: SimSettings | None = None,
                 program: CompiledProgram | None = None,
                 verdict: VerdictFactory = LinkVerdict,
                 routing: Routing = compute_next_hops) -> None:
        """The controller's rules, as the lab's controller takes them: `verdict(miss_limit,
        up_after, up)` makes each link's down/up rule (the liveness exercise passes a
        student's), `routing(fabric, down links)` gives every switch's next hops (the
        failover exercise passes a student's)."""
        self.fabric = fabric
        self.settings = s = settings or SimSettings()
        # the C loop (`SimLoop`: the same interface) or the Python reference
        self._native = native_loop(s.fabric)
        self.loop = self._native if self._native is not None else EventLoop()
        self.rng = random.Random(s.seed)
        self._shared_payload = b""
        self.program = program or compiled(pipeline=s.pipeline)
        self.wires: dict[tuple[str, int], Wire | NativeWire] = {}  # (sender node, port/NIC)
        # each switch's ports as its watch ports see them (admin-down links are down)
        self._port_states = {name: PortStates() for name in fabric.switches}
        self.switches = {
            name: SimSwitch(name, sw.device_id, sorted(sw.ports), self.loop, self.program,
                            s.queues(), self._switch_transmit(name),
                            self._port_states[name],
                            random.Random(f"{s.seed}/{name}"), s.traffic_manager,
                            self._native)
            for name, sw in fabric.switches.items()}
        nics: dict[str, dict[int, Nic]] = {name: {} for name in fabric.hosts}
        self.hosts: dict[str, EndpointHost] = {}
        for link in fabric.links:
            self._wire_up(link, nics)
        for name in fabric.hosts:
            self.hosts[name] = EndpointHost(name, self.loop, nics[name],
                                            random.Random(self.rng.getrandbits(64)),
                                            s.sample_interval_s,
                                            s.link_rate_bps if s.pace_resends else 0.0)
        self.controller = SimController(self.loop, fabric, self.switches, self.program,
                                        s.policy(), s.probe_interval_s, s.miss_limit,
                                        s.write_delay_s, verdict, routing)
        self.flows: list[HostFlow] = []
        self._first_running = 0  # flows before this index are done

    def _receiver(self, node: str):
        """What a wire to `node` hands its frames to: a switch's `receive`, or on the
        native fabric the index of a switch the C loop runs, or a host's `receive`."""
        if node in self.fabric.switches:
            switch = self.switches[node]
            return switch.receive if switch.native_index is None else switch.native_index
        return lambda port, frame: self.hosts[node].receive(port, frame)

    def _wire_up(self, link: Link, nics: dict[str, dict[int, Nic]]) -> None:
        s = self.settings
        between_switches = link.a in self.switches and link.b in self.switches
        rate = (link.params.bw_mbps * 1e6 if link.params.bw_mbps else
                s.fabric_rate_bps if between_switches and s.fabric_rate_bps else
                s.link_rate_bps)
        delay = _seconds(link.params.delay, s.link_delay_s)
        loss = (link.params.loss_pct or 0.0) / 100
        for (a, pa), (b, pb) in (((link.a, link.a_port), (link.b, link.b_port)),
                                 ((link.b, link.b_port), (link.a, link.a_port))):
            rng = random.Random(self.rng.getrandbits(64))
            if self._native is None:
                wire = Wire(self.loop, rate, delay, loss, rng, self._receiver(b), pb,
                            s.link_model)
            else:
                wire = NativeWire(self._native, rate, delay, loss, rng, pb, self._receiver(b),
                                  s.link_model)
                index = self.switches[a].native_index if a in self.switches else None
                if index is not None:  # its frames to `pa` go on the wire in C
                    self._native.connect(index, pa, wire.index)
            self.wires[(a, pa)] = wire
            if a in self.fabric.hosts:
                nics[a][pa] = nic_queue(self.loop, wire)
            elif rate != s.link_rate_bps:
                self.switches[a].tm.set_line_rate(rate, pa)

    def _switch_transmit(self, name: str):
        wires = self.wires

        def transmit(port: int, frame: bytes, depart: float) -> None:
            wire = wires.get((name, port))
            if wire is not None:  # an unconnected port loses the frame, as BMv2
                wire.send(frame, max(depart, self.loop.now))
        return transmit

    # --- set-up and traffic
    def start(self, probing: bool = True) -> int:
        """Program every switch (at t = now) and start link probing; the update count."""
        updates = self.controller.program_all()
        if probing:
            self.controller.start_probing()
        return updates

    def add_flow(self, spec: FlowSpec, cfg: SenderConfig | None = None,
                 data: bytes | None = None,
                 sender_class: Callable[..., MrcSender] = MrcSender,
                 track: bool = True, hold: bool = False) -> HostFlow | None:
        """Start `spec` (now, or at its `start`: then None is returned and the flow joins
        `flows` when it begins). `track=False`: the flow stays out of `flows` (a
        collective's thousands of slices, whose driver follows them itself). `hold`: open
        its connection, send its data after `EndpointHost.release`."""
        for name in (spec.src, spec.dst):
            if name not in self.hosts:
                raise ValueError(f"simulator: unknown host {name!r}")
        if spec.size < 1:
            raise ValueError(f"simulator: flow size {spec.size}")
        cfg = replace(cfg or SenderConfig(), mss=self.settings.mss, seed=spec.seed,
                      routes=spec.routes)
        payload = data if data is not None else self._payload(spec.size)
        holder: list[HostFlow] = []

        def begin() -> None:
            src = self.hosts[spec.src]
            paths = paths_between(self.fabric.hosts[spec.src], self.fabric.hosts[spec.dst],
                                  spec.planes)
            holder.append(src.add_flow(spec, paths, payload, cfg, sender_class, hold))
            if track:
                self.flows.append(holder[0])
        if spec.start <= self.loop.now:
            begin()
            return holder[0]
        self.loop.at(spec.start, begin)
        return None

    def _payload(self, size: int) -> memoryview:
        """`size` bytes for a flow to carry: views of one buffer that every flow shares, so
        the senders of a datacenter's permutation hold one transfer, not one each."""
        if len(self._shared_payload) < size:
            self._shared_payload = random_bytes(size)
        return memoryview(self._shared_payload)[:size]

    def run(self, until: float) -> None:
        self.loop.run(until)

    def run_flows(self, max_time: float, expected: int | None = None) -> bool:
        """Run until every flow (all `expected` of them) finished or `max_time`; True when
        every one finished."""
        want = expected if expected is not None else len(self.flows)
        self.loop.run(max_time, lambda: self.flows_done(want))
        self.controller.stop_probing()
        return self.flows_done(want)

    def flows_done(self, expected: int) -> bool:
        """Whether `expected` flows have begun and every one has finished. The event loop
        asks after every event: a flow, once done, stays done, so this looks at the first
        one still running rather than at all of them."""
        flows, i = self.flows, self._first_running
        while i < len(flows) and flows[i].done:
            i += 1
        self._first_running = i
        return i >= expected and i == len(flows)

    # --- failures
    def _links_between(self, a: str, b: str) -> list[Link]:
        found = [lk for lk in self.fabric.links if {lk.a, lk.b} == {a, b}]
        if not found:
            raise ValueError(f"simulator: no link between {a!r} and {b!r}")
        return found

    def set_link(self, a: str, b: str, state: LinkState, at: float | None = None) -> None:
        """Fail (gray or admin) or restore the link between nodes `a` and `b`, now or at
        `at`."""
        links = self._links_between(a, b)
        if at is not None and at > self.loop.now:
            self.loop.at(at, self.set_link, a, b, state)
            return
        for link in links:
            for node, port in ((link.a, link.a_port), (link.b, link.b_port)):
                self.wires[(node, port)].state = state
                if node in self._port_states:
                    self._port_states[node].set_up(port, state is not LinkState.ADMIN_DOWN)

    def fail_switch(self, name: str, at: float | None = None) -> None:
        """Every link of switch `name` fails (gray): the switch is gone."""
        if name not in self.switches:
            raise ValueError(f"simulator: unknown switch {name!r}")
        for peer in {p.node for p in self.fabric.switches[name].ports.values()}:
            self.set_link(name, peer, LinkState.GRAY, at)

    def fail_plane(self, plane: int, at: float | None = None) -> None:
        """Every switch of `plane` fails: the hosts keep their other planes."""
        names = [n for n, sw in self.fabric.switches.items() if sw.plane == plane]
        if not names:
            raise ValueError(f"simulator: no plane {plane} (planes: {self.fabric.planes})")
        for name in names:
            self.fail_switch(name, at)

    # --- figures
    def packet_hops(self) -> int:
        """Frames carried by every wire so far."""
        if self._native is not None:
            return self._native.packet_hops()
        return sum(w.counters.frames for w in self.wires.values())

    def port_counters(self) -> dict[str, dict[int, dict[str, int]]]:
        """Per switch and port, frames and bytes sent and received (what the lab reads from
        the kernel's interface statistics)."""
        out: dict[str, dict[int, dict[str, int]]] = {}
        for link in self.fabric.links:
            for (a, pa), (b, pb) in (((link.a, link.a_port), (link.b, link.b_port)),
                                     ((link.b, link.b_port), (link.a, link.a_port))):
                tx = self.wires[(a, pa)].counters
                if a in self.switches:
                    row = out.setdefault(a, {}).setdefault(pa, {})
                    row.update(tx_bytes=tx.bytes, tx_packets=tx.frames)
                if b in self.switches:
                    row = out.setdefault(b, {}).setdefault(pb, {})
                    row.update(rx_bytes=tx.bytes, rx_packets=tx.frames)
        return out


def paths_between(node: HostNode, peer: HostNode, planes: tuple[int, ...] | None = None
                  ) -> list[tuple[int, FrameAddress]]:
    """`EndpointHost.add_flow`'s paths from `node` to `peer` on `planes` (None: every plane
    both have a NIC on), each NIC addressing the peer's NIC on its plane directly."""
    if planes is None:
        planes = tuple(nic.plane for nic in node.nics if peer.nic_on_plane(nic.plane) is not None)
    pairs = [(node.nic_on_plane(p), peer.nic_on_plane(p)) for p in planes]
    if not pairs or any(a is None or b is None for a, b in pairs):
        raise ValueError(f"flow {node.name} -> {peer.name}: no shared plane among {planes}")
    return [(a.index, FrameAddress.of(a.mac, b.mac, a.ip, b.ip)) for a, b in pairs]
