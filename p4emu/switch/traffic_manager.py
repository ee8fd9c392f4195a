"""One switch's data path: receive on ports, ingress, egress queues, egress, transmit.

A `DataplaneLoop` thread runs it (alone or beside other switches), so queue state needs
no locking of its own: the loop hands it readable port sockets, then has it `serve`
injected frames and its egress queues, and sleeps until the deadline `serve` returns.
Frames injected by other threads (PacketOut) come in through a deque and a wake-up of
the loop. Pipeline work holds `core.lock`, as do control-plane changes.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from p4emu.switch.core import SwitchCore
from p4emu.switch.pcap import PortPcaps
from p4emu.switch.ports import Port, PortSet
from p4emu.switch.program import LoadedProgram
from p4emu.switch.queues import DropReason, Enqueued, PortQueues, QueueConfig

if TYPE_CHECKING:
    from p4emu.switch.dataplane_loop import DataplaneLoop

log = logging.getLogger(__name__)

MAX_INJECT_BACKLOG = 10000


@dataclass
class QueueSettings:
    """Start-up queue settings; per-port overrides come from the runtime control."""

    depth: int = 64
    rate_pps: float = 0.0
    line_rate_bps: float = 0.0
    priorities: int = 1
    priority_depths: dict[int, int] = field(default_factory=dict)  # priority -> depth
    per_port: dict[int, QueueConfig] = field(default_factory=dict)

    def config_for(self, port: int) -> QueueConfig:
        base = self.per_port.get(port)
        if base is not None:
            return base.copy()
        return QueueConfig(self.depth, self.rate_pps, self.line_rate_bps,
                           dict(self.priority_depths))


def _set_depth(config: QueueConfig | QueueSettings, depth: int, priority: int | None) -> None:
    if priority is None:
        config.depth = depth
        config.priority_depths.clear()
    else:
        config.priority_depths[priority] = depth


class TrafficManager:
    def __init__(self, core: SwitchCore, ports: PortSet, settings: QueueSettings,
                 pcaps: PortPcaps | None = None) -> None:
        self.core = core
        self.ports = ports
        self.settings = settings
        self.pcaps = pcaps
        self.queues: dict[int, PortQueues] = {}
        self._injected: deque[tuple[int, bytes]] = deque()
        self.loop: DataplaneLoop | None = None  # set by the loop that serves it
        # internal errors of the pipeline (p4emu bugs, faults BMv2 aborts on): the packet
        # is dropped and the switch goes on; `p4emu cli internal_errors` reads these
        self.pipeline_errors = 0
        self.last_pipeline_error: str | None = None
        self.injected_dropped = 0
        self._bad_priority_ports: set[int] = set()
        core.inject = self.inject
        core.on_program_change(self._program_changed)
        for number in ports.ports:
            self.queue(number)

    # --- queues (call with core.lock held from other threads)
    def queue(self, port: int) -> PortQueues:
        q = self.queues.get(port)
        if q is None:
            q = self.queues[port] = self._new_queues(port)
        return q

    def _new_queues(self, port: int) -> PortQueues:
        """One port's queues: the Python model here (`native_traffic_manager` compiles them)."""
        return PortQueues(self.settings.config_for(port), self.settings.priorities)

    def set_depth(self, depth: int, port: int | None = None,
                  priority: int | None = None) -> None:
        """Depth of one priority's FIFO, or (priority None) of all the port's FIFOs."""
        for number, q in self._targets(port):
            _set_depth(q.config, depth, priority)
            q.reconfigure()
            self.settings.per_port[number] = q.config
        if port is None:  # ports created later get it too
            _set_depth(self.settings, depth, priority)
        self._wake()

    def set_rate(self, rate_pps: float, port: int | None = None) -> None:
        for number, q in self._targets(port):
            q.config.rate_pps = rate_pps
            q.reconfigure()
            self.settings.per_port[number] = q.config
        if port is None:
            self.settings.rate_pps = rate_pps
        self._wake()

    def set_line_rate(self, bps: float, port: int | None = None) -> None:
        for number, q in self._targets(port):
            q.config.line_rate_bps = bps
            q.reconfigure()
            self.settings.per_port[number] = q.config
        if port is None:
            self.settings.line_rate_bps = bps
        self._wake()

    def _targets(self, port: int | None) -> list[tuple[int, PortQueues]]:
        if port is None:
            return list(self.queues.items())
        return [(port, self.queue(port))]

    def _program_changed(self, program: LoadedProgram) -> None:
        # queued jobs belong to the old program's state: discard them
        dropped = sum(q.clear() for q in self.queues.values())
        if dropped:
            log.info("pipeline change discarded %d queued packets", dropped)

    # --- other threads
    def inject(self, port: int, frame: bytes) -> None:
        """Treat `frame` as received on `port` (PacketOut on the CPU port)."""
        if len(self._injected) >= MAX_INJECT_BACKLOG:
            self.injected_dropped += 1
            return
        self._injected.append((port, frame))
        self._wake()

    def _wake(self) -> None:
        loop = self.loop
        if loop is not None:
            loop.wake(self)

    # --- the loop thread
    def fast_path(self):
        """The compiled server a `DataplaneLoop` in C may drive for the current program
        without calling back, or None: here always None, the Python queues are served
        through `receive` and `serve` (`NativeTrafficManager` has one)."""
        return None

    def receive(self, port: Port) -> None:
        """Take in what waits on one readable port socket."""
        for frame in self.ports.receive(port):
            self.ingress(port.number, frame)

    def serve(self) -> float | None:
        """Run injected frames and due egress; returns when (time.monotonic()) the queues
        next release a packet, or None when they are empty."""
        ready = self.serve_due()
        if ready is None:
            return None
        with self.core.lock:
            now = self.core.queue_clock_us()
        return time.monotonic() + (ready - now) / 1e6

    def serve_due(self) -> float | None:
        """Run injected frames and due egress; returns when (the core's queue clock, µs)
        the queues next release a packet, or None when they are empty."""
        while self._injected:
            port_number, frame = self._injected.popleft()
            self.ingress(port_number, frame)
        return self._serve_egress()

    def receive_due(self, port: int, frame: bytes) -> float | None:
        """`ingress`, then `serve_due`: what a simulated switch does with each frame."""
        self.ingress(port, frame)
        return self.serve_due()

    def ingress(self, port: int, frame: bytes) -> None:
        """Run the ingress pipeline on a frame received on `port` and queue its jobs."""
        if self.pcaps is not None:
            self.pcaps.received(port, frame)
        with self.core.lock:
            program = self.core.program
            if program is None:
                return  # no pipeline: drop, as simple_switch_grpc --no-p4
            queue_now, now = self.core.clocks()
            try:
                jobs = program.pipeline.ingress(port, frame, now)
            except Exception as exc:
                self._internal_error(exc, f"ingress of a {len(frame)}-byte frame from port {port}")
                return
            self._enqueue(port, jobs, queue_now)

    def _enqueue(self, port: int, jobs, queue_now: float) -> None:
        """Offer the jobs of a frame received on `port` to their egress queues."""
        for job in jobs:
            result = self.queue(job.port).offer(job, priority=job.priority, now_us=queue_now)
            if isinstance(result, Enqueued):
                log.debug("port %d -> queue %d prio %d depth %d", port, job.port,
                          job.priority, result.enq_qdepth)
            elif result == DropReason.BAD_PRIORITY:
                self._bad_priority(job)

    def _bad_priority(self, job) -> None:
        # as BMv2, an error; once per port, then only counted (port_stats)
        first = job.port not in self._bad_priority_ports
        self._bad_priority_ports.add(job.port)
        log.log(logging.ERROR if first else logging.DEBUG,
                "priority %d >= %d queues: packet to port %d dropped",
                job.priority, len(self.queue(job.port).fifos), job.port)

    def _serve_egress(self) -> float | None:
        """Serve every port whose server is free and whose head has arrived, as of one
        reading of the queue clock; ports take turns, one packet each, until none is due.
        Returns the earliest time a port will next have a packet due (None: all empty).

        Only the ports with something queued are served (a k=8 fat-tree switch has 8
        ports, mostly idle at any one time). Each visit reads the port's ready time once:
        it says whether to serve the port now and, on the port's last visit (nothing due
        any more), when to come back; egress only sends frames out, so no port's queue
        changes after its last visit and these are the ready times after the pass."""
        with self.core.lock:
            program = self.core.program
            if program is None:
                ready = [q.next_ready_us() for q in self.queues.values() if q.queued]
                return min(ready) if ready else None
            now, now_us = self.core.clocks()
            egress = program.pipeline.egress
            next_ready = None
            active = self.queues.items()  # the first round visits every port
            while active:
                still = []
                for number, q in active:
                    if not q.queued:
                        continue
                    ready = q.next_ready_us()
                    if ready > now:
                        if next_ready is None or ready < next_ready:
                            next_ready = ready
                        continue
                    dequeued = q.start_service(ready)
                    still.append((number, q))
                    try:
                        outputs = egress(
                            dequeued.item, enq_timestamp=dequeued.enq_timestamp,
                            enq_qdepth=dequeued.enq_qdepth,
                            deq_timedelta=dequeued.deq_timedelta,
                            deq_qdepth=dequeued.deq_qdepth, now_us=now_us)
                    except Exception as exc:
                        self._egress_error(exc, number)
                        outputs = []
                    q.charge(dequeued, sum(len(data) for _, data in outputs))
                    for out_port, data in outputs:
                        self._transmit(out_port, data, dequeued.start_us)
                active = still
            return next_ready

    def _egress_error(self, exc: Exception, port: int) -> None:
        self._internal_error(exc, f"egress to port {port}")

    def _internal_error(self, exc: Exception, where: str) -> None:
        """Count, log at error level with the traceback, remember the last one."""
        self.pipeline_errors += 1
        self.last_pipeline_error = f"{where}: {type(exc).__name__}: {exc}"
        log.error("internal error in %s; packet dropped", where, exc_info=exc)

    def _transmit(self, port: int, frame: bytes, start_us: float) -> None:
        """Send one frame whose service began at `start_us` (queue clock)."""
        if port == self.core.cpu_port:
            self.core.packet_in(frame)
            return
        if self.pcaps is not None:
            self.pcaps.sent(port, frame)
        self.ports.send(port, frame, start_us)
