"""Simulated hosts: the endpoint's `MrcSender` and `MrcReceiver`, framed by the endpoint's
own `FrameBuilder` / `parse_frame`, one NIC per plane, timers on the event loop.

This is what `mrclab.endpoint.runner.run_sender` / `run_receiver` do with sockets: a sender polls
its core when a timer is due or feedback arrives and sends each packet on the NIC of its
plane (DATA with ECT(0)); a receiver answers on the NIC the packet came in on, to the
address it came from.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from mrclab.endpoint.core.receiver import Message, MrcReceiver, ReceiverConfig
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.netio import ECT0, FrameAddress, FrameBuilder, parse_frame
from mrclab.endpoint.wire import MalformedPacket, MsgType
from mrclab.fabric.model import HostNode
from mrclab.sim.clock import DeadlineTimer, EventLoop
from mrclab.sim.links import NicQueue


@dataclass(frozen=True)
class FlowSpec:
    """One message from `src` to `dst` over the planes both share (or `planes`)."""

    src: str
    dst: str
    size: int
    start: float = 0.0
    planes: tuple[int, ...] | None = None
    seed: int = 1
    # per plane (in the order of the flow's planes), the `route` words to spray over
    routes: tuple[tuple[int, ...], ...] = ()


@dataclass
class SimFlow:
    spec: FlowSpec
    sender: MrcSender
    nics: list[int]  # the sender's NIC index per sender plane
    builders: list[FrameBuilder]
    progress: list[tuple[float, int]] = field(default_factory=list)  # (t, bytes acked)
    timer: DeadlineTimer | None = None
    reported: bool = False  # `SimHost.on_flow_done` has been told

    @property
    def done(self) -> bool:
        return self.sender.done or self.sender.failed

    def acked_bytes(self) -> int:
        return min(self.sender.board.delivered_count * self.sender.cfg.mss,
                   self.sender.length)


class SimHost:
    def __init__(self, node: HostNode, loop: EventLoop, nics: dict[int, NicQueue],
                 rng: random.Random, sample_interval: float, link_rate_bps: float = 0.0) -> None:
        """`sample_interval`: the spacing of each flow's progress samples (s);
        `link_rate_bps`: the NICs' rate, at which the receiver paces the resends it asks
        for (`ReceiverConfig.link_rate_bps`; 0: at once)."""
        self.node, self.loop, self.nics = node, loop, nics
        self.sample_interval = sample_interval
        # CRCs checked as the bytes come, none kept: 128 transfers of 180 MB each would
        # hold 23 GB in the receivers
        self.receiver = MrcReceiver(ReceiverConfig(seed=rng.getrandbits(32),
                                                   link_rate_bps=link_rate_bps,
                                                   keep_data=False))
        self.flows: list[SimFlow] = []
        # (NIC, peer address) -> the flows to it and their plane: several at once when a
        # collective sends slices in flight to one neighbour; told apart by `conn`
        self._by_peer: dict[tuple[int, bytes], list[tuple[SimFlow, int]]] = {}
        self._reply_builders: dict[tuple[int, FrameAddress], FrameBuilder] = {}
        self.messages: list[Message] = []
        self.garbage = 0
        # a collective's driver (mrclab.experiments.sim_engine.collective): a message
        # received whole goes to `on_message` instead of `messages`, and a flow of this
        # host whose sender finished or gave up to `on_flow_done` (once), after which the
        # host forgets it
        self.on_message: Callable[[Message], None] | None = None
        self.on_flow_done: Callable[[SimFlow], None] | None = None

    # --- sending
    def add_flow(self, spec: FlowSpec, peer: SimHost, data: bytes, cfg: SenderConfig,
                 sender_class: Callable[..., MrcSender] = MrcSender) -> SimFlow:
        """`sender_class` makes the core (as `mrclab.endpoint.runner.run_sender` takes it)."""
        planes = spec.planes if spec.planes is not None else tuple(
            nic.plane for nic in self.node.nics if peer.node.nic_on_plane(nic.plane) is not None)
        pairs = [(self.node.nic_on_plane(p), peer.node.nic_on_plane(p)) for p in planes]
        if not pairs or any(a is None or b is None for a, b in pairs):
            raise ValueError(f"flow {spec.src} -> {spec.dst}: no shared plane among {planes}")
        sender = sender_class(data, len(pairs), cfg, now=self.loop.now)
        builders = [FrameBuilder(FrameAddress.of(a.mac, b.mac, a.ip, b.ip)) for a, b in pairs]
        flow = SimFlow(spec, sender, [a.index for a, _ in pairs], builders,
                       [(self.loop.now, 0)])
        for i, (a, _b) in enumerate(pairs):
            self._by_peer.setdefault((a.index, builders[i].addr.dst_ip), []).append((flow, i))
        if self.on_flow_done is None:
            self.flows.append(flow)
        flow.timer = DeadlineTimer(self.loop, lambda: self._wake(flow))
        self.loop.at(self.loop.now, self._wake, flow)
        return flow

    def _wake(self, flow: SimFlow) -> None:
        sender = flow.sender
        for out in sender.poll(self.loop.now):
            data = out.header.type == MsgType.DATA
            self.nics[flow.nics[out.plane]].send(
                flow.builders[out.plane].build(out.header, out.payload, ECT0 if data else 0),
                urgent=not data, flow=id(flow))
        flow.timer.arm(sender.next_deadline())
        if self.on_flow_done is not None and (sender.done or sender.failed) \
                and not flow.reported:
            flow.reported = True
            self._forget(flow)
            self.on_flow_done(flow)

    def _forget(self, flow: SimFlow) -> None:
        for builder, nic in zip(flow.builders, flow.nics, strict=True):
            key = (nic, builder.addr.dst_ip)
            rest = [entry for entry in self._by_peer.get(key, ()) if entry[0] is not flow]
            if rest:
                self._by_peer[key] = rest
            else:
                self._by_peer.pop(key, None)

    # --- receiving
    def receive(self, nic_index: int, frame: bytes) -> None:
        try:
            parsed = parse_frame(frame)
        except MalformedPacket:
            self.garbage += 1
            return
        now = self.loop.now
        if parsed.header.type in (MsgType.DATA, MsgType.PROBE):
            replies = self.receiver.on_packet(parsed.peer_ip, parsed.header, parsed.payload,
                                              parsed.ce, now, nic_index)
            if replies:
                key = (nic_index, parsed.addr)
                builder = self._reply_builders.get(key)
                if builder is None:
                    builder = self._reply_builders[key] = FrameBuilder(parsed.addr.reversed())
                for reply in replies:
                    self.nics[nic_index].send(builder.build(reply.header), urgent=True)
            for msg in self.receiver.take_messages():
                if self.on_message is not None:
                    self.on_message(msg)
                else:
                    self.messages.append(msg)
            return
        found = self._by_peer.get((nic_index, parsed.addr.src_ip))
        if found is None:
            self.garbage += 1
            return
        if len(found) == 1:  # the sender itself ignores what is not its connection's
            flow, plane = found[0]
        else:
            match = _connection_of(found, parsed.header)
            if match is None:
                self.garbage += 1
                return
            flow, plane = match
        flow.sender.on_packet(plane, parsed.header, now)
        if now - flow.progress[-1][0] >= self.sample_interval or flow.sender.done:
            flow.progress.append((now, flow.acked_bytes()))
        self._wake(flow)


def _connection_of(flows: list[tuple[SimFlow, int]], hdr) -> tuple[SimFlow, int] | None:
    """Which of several flows to one peer a feedback packet answers: its `conn`, or for
    the answer to an open (the receiver's new `conn`) the nonce it echoes."""
    for flow, plane in flows:
        sender = flow.sender
        if sender.opening:
            if hdr.reserved == sender.nonce:
                return flow, plane
        elif hdr.conn == sender.conn:
            return flow, plane
    return None
