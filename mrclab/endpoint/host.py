"""One host of the endpoint with many transfers at once: the endpoint's `MrcSender`s and
one `MrcReceiver`, framed by the endpoint's own `FrameBuilder` / `parse_frame`, one NIC per
plane, timers on an `EventLoop` (mrclab.endpoint.clock).

What it needs of the world is two seams: the loop's clock and timers (virtual time in the
simulator, the wall clock in a lab rank agent) and each NIC's `send` (the simulator's
`NicQueue`, a raw socket in the lab). A sender is polled when a timer is due or feedback
arrives and sends each packet on the NIC of its plane (DATA with ECT(0)); the receiver
answers on the NIC the packet came in on, to the address it came from. This is what
`mrclab.endpoint.runner.run_sender` / `run_receiver` do for one transfer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Protocol

from mrclab.endpoint.clock import DeadlineTimer, EventLoop
from mrclab.endpoint.core.connection import Connection
from mrclab.endpoint.core.receiver import Message, MrcReceiver, ReceiverConfig
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.netio import ECT0, FrameAddress, FrameBuilder, parse_frame
from mrclab.endpoint.wire import MalformedPacket, MsgType


class Nic(Protocol):
    """A host's NIC as the host uses it (what `send` returns is ignored: typed `object`,
    so the compiled host takes any, as Python does)."""

    def send(self, frame: bytes, urgent: bool = False, flow: Hashable = None) -> object:
        """Queue `frame`; `urgent`: control, ahead of DATA; `flow`: its connection."""


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
class HostFlow:
    spec: FlowSpec
    sender: MrcSender
    nics: list[int]  # the sender's NIC index per sender plane
    builders: list[FrameBuilder]
    progress: list[tuple[float, int]] = field(default_factory=list)  # (t, bytes acked)
    timer: DeadlineTimer | None = None
    reported: bool = False  # over, and `EndpointHost.on_flow_done` (if any) told
    shared: SharedConnection | None = None  # the connection it shares with other flows

    @property
    def done(self) -> bool:
        return self.sender.done or self.sender.failed

    def acked_bytes(self) -> int:
        return min(self.sender.board.delivered_count * self.sender.cfg.mss,
                   self.sender.length)


@dataclass
class SharedConnection:
    """A connection that several flows (messages) share, and those flows not yet over,
    oldest first: the order in which they take the slots of its window."""

    connection: Connection
    flows: list[HostFlow] = field(default_factory=list)


class EndpointHost:
    def __init__(self, name: str, loop: EventLoop, nics: dict[int, Nic],
                 rng: random.Random, sample_interval: float, link_rate_bps: float = 0.0,
                 share_connections: bool = False) -> None:
        """`sample_interval`: the spacing of each flow's progress samples (s);
        `link_rate_bps`: the NICs' rate, at which the receiver paces the resends it asks
        for (`ReceiverConfig.link_rate_bps`; 0: at once); `share_connections`: a flow
        joins the connection (`core.connection.Connection`) of the flows before it to the
        same peer over the same paths, as the messages of one RDMA connection do (a
        collective's: NCCL keeps a connection per peer), sharing their window and path
        state; otherwise each flow is a connection of its own."""
        self.name, self.loop, self.nics = name, loop, nics
        self.sample_interval = sample_interval
        # CRCs checked as the bytes come, none kept: 128 transfers of 180 MB each would
        # hold 23 GB in the receivers
        self.receiver = MrcReceiver(ReceiverConfig(seed=rng.getrandbits(32),
                                                   link_rate_bps=link_rate_bps,
                                                   keep_data=False))
        self.flows: list[HostFlow] = []
        # (NIC, peer address) -> the flows to it and their plane: several at once when a
        # collective sends slices in flight to one neighbour; told apart by `conn`
        self._by_peer: dict[tuple[int, bytes], list[tuple[HostFlow, int]]] = {}
        self._reply_builders: dict[tuple[int, FrameAddress], FrameBuilder] = {}
        self.messages: list[Message] = []
        self.garbage = 0
        # a collective's driver (mrclab.experiments.sim_engine.collective): a message
        # received whole goes to `on_message` instead of `messages`, and a flow of this
        # host whose sender finished or gave up to `on_flow_done` (once), after which the
        # host forgets it
        self.on_message: Callable[[Message], object] | None = None
        self.on_flow_done: Callable[[HostFlow], object] | None = None
        self.share_connections = share_connections
        self._connections: dict[tuple, SharedConnection] = {}

    # --- sending
    def add_flow(self, spec: FlowSpec, paths: list[tuple[int, FrameAddress]],
                 data: bytes | bytearray | memoryview, cfg: SenderConfig,
                 sender_class: Callable[..., MrcSender] = MrcSender,
                 hold: bool = False) -> HostFlow:
        """Start sending `data` now over `paths`: per plane of the flow, the index of this
        host's NIC and the addresses its frames carry (`mrclab.sim.network.paths_between`,
        or the kernel's routes in the lab). `sender_class` makes the core (as
        `mrclab.endpoint.runner.run_sender` takes it). `hold`: open the connection now and
        send the data after `release` (`MrcSender`'s `hold`)."""
        if not paths:
            raise ValueError(f"flow {spec.src} -> {spec.dst}: no path")
        shared: SharedConnection | None = None
        if self.share_connections:
            key = (tuple(paths), cfg.routes, cfg.evs_per_plane)
            shared = self._connections.get(key)
            sender = sender_class(data, len(paths), cfg, now=self.loop.now, hold=hold,
                                  connection=None if shared is None else shared.connection)
            if shared is None:
                shared = self._connections[key] = SharedConnection(sender.connection)
        else:
            sender = sender_class(data, len(paths), cfg, now=self.loop.now, hold=hold)
        builders = [FrameBuilder(addr) for _, addr in paths]
        flow = HostFlow(spec, sender, [nic for nic, _ in paths], builders,
                        [(self.loop.now, 0)], shared=shared)
        if shared is not None:
            shared.flows.append(flow)
        for i, (nic, addr) in enumerate(paths):
            self._by_peer.setdefault((nic, addr.dst_ip), []).append((flow, i))
        if self.on_flow_done is None:
            self.flows.append(flow)
        flow.timer = DeadlineTimer(self.loop, lambda: self._wake(flow))
        self.loop.at(self.loop.now, self._wake, flow)
        return flow

    def release(self, flow: HostFlow) -> None:
        """`flow`'s data is ready: it goes as soon as its connection is open. Its progress
        counts from now."""
        flow.sender.release(self.loop.now)
        flow.progress = [(self.loop.now, 0)]
        self._wake(flow)

    def _wake(self, flow: HostFlow) -> None:
        """Run `flow`'s sender; then, when it shares its connection's window, the flows of
        that connection that wait for a slot, oldest first (the slots it freed, or its
        end freed, are theirs: nothing else would wake them)."""
        self._poll(flow)
        shared = flow.shared
        if shared is not None and shared.flows:
            for other in tuple(shared.flows):  # (a poll may end a flow: it leaves the list)
                if other is not flow and other.sender.wants_window():
                    self._poll(other)

    def _poll(self, flow: HostFlow) -> None:
        sender = flow.sender
        # the NIC takes DATA of different connections in turn, one connection's in order
        queue = id(flow) if flow.shared is None else id(flow.shared)
        for out in sender.poll(self.loop.now):
            data = out.header.type == MsgType.DATA
            self.nics[flow.nics[out.plane]].send(
                flow.builders[out.plane].build(out.header, out.payload, ECT0 if data else 0),
                urgent=not data, flow=queue)
        timer = flow.timer
        assert timer is not None  # set by `add_flow`
        timer.arm(sender.next_deadline())
        if (sender.done or sender.failed) and not flow.reported:
            flow.reported = True
            if flow.shared is not None:
                flow.shared.flows.remove(flow)
            if self.on_flow_done is not None:
                self._forget(flow)
                self.on_flow_done(flow)

    def _forget(self, flow: HostFlow) -> None:
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


def _connection_of(flows: list[tuple[HostFlow, int]], hdr) -> tuple[HostFlow, int] | None:
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
