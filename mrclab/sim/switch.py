"""A simulated switch: p4emu's `SwitchCore`, compiled pipeline and `TrafficManager`, the
objects `p4emu switch` runs, on the event loop's clock, with ports that are links.

Nothing of the data path is modelled here: a frame that reaches a port goes through the
traffic manager's ingress (the P4 ingress, then the egress queues with their depth
limits, strict priorities and line rate); when a queue releases a packet the P4 egress
runs and the frame leaves on the port's link at the time its service began.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from p4.v1 import p4runtime_pb2

from mrclab.endpoint.clock import DeadlineTimer, EventLoop
from mrclab.sim.program import CPU_PORT, CompiledProgram
from p4emu.switch import packet_io
from p4emu.switch.core import SwitchCore
from p4emu.switch.entity_writes import EntityWriter
from p4emu.switch.native_traffic_manager import traffic_manager_class
from p4emu.switch.program import build_program
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

# (port, frame, departure time in s): what a switch hands its links
Transmit = Callable[[int, bytes, float], None]


class SimPorts:
    """The switch's port numbers, and transmission handed to the links (the interface
    `TrafficManager` expects of `p4emu.switch.ports.PortSet`)."""

    def __init__(self, numbers: list[int], transmit: Transmit, epoch: float) -> None:
        self.ports = dict.fromkeys(numbers)
        self._transmit = transmit
        self._epoch = epoch

    def send(self, number: int, frame: bytes, start_us: float | None = None) -> bool:
        self._transmit(number, frame, self._epoch + (start_us or 0.0) / 1e6)
        return True


class SimSwitch:
    def __init__(self, name: str, device_id: int, ports: list[int], loop: EventLoop,
                 program: CompiledProgram, queues: QueueSettings, transmit: Transmit,
                 port_up: Callable[[int], bool], rng: random.Random,
                 traffic_manager: str = "auto") -> None:
        """`rng`: what the P4 program's random() draws from (the simulator seeds one per
        switch, so the same seed repeats a run); `traffic_manager`: see
        `p4emu.switch.native_traffic_manager.traffic_manager_class`."""
        self.name = name
        self.loop = loop
        self.core = SwitchCore(device_id, CPU_PORT, clock_ns=lambda: round(loop.now * 1e9))
        self.core.port_up = port_up
        loaded = build_program(program.loader, program.p4info, program.device_config, 1,
                               port_up=port_up, clock_us=self.core.clock_us, rng=rng)
        tm_class = traffic_manager_class(traffic_manager, loaded.pipeline)
        self.tm: TrafficManager = tm_class(self.core, SimPorts(ports, transmit, loop.now), queues)
        self.core.install(loaded)
        self.writer = EntityWriter(loaded.state, loaded.encodings)
        self._timer = DeadlineTimer(loop, self._serve)
        self._epoch = loop.now
        self.packet_in: Callable[[bytes, dict[int, bytes]], None] = lambda payload, md: None
        self.core.packet_in = self._to_controller

    # --- data plane
    def receive(self, port: int, frame: bytes) -> None:
        """A frame arrived on `port` now."""
        self._arm(self.tm.receive_due(port, frame))

    def _serve(self) -> None:
        self._arm(self.tm.serve_due())

    def _arm(self, ready_us: float | None) -> None:
        """Come back when the queues next release a packet (`ready_us`, queue clock)."""
        if ready_us is not None:
            # the first whole ns at which the queue clock (ns / 1000) has reached
            # `ready_us`; ceil(ready_us * 1000) alone can round below it
            ns = math.ceil(ready_us * 1000)
            while ns / 1000 < ready_us:
                ns += 1
            self._timer.arm(self._epoch + ns / 1e9)

    # --- control plane (in process: what the P4Runtime server does with a request)
    def write(self, updates: list[p4runtime_pb2.Update]) -> list[str]:
        """Apply a batch of updates through p4emu's entity-write path (the controller
        core's `Writer`). A refused update raises P4RTError rather than becoming an error
        to log: in virtual time nothing can retry it, and a run on a half-written fabric
        would give wrong figures."""
        for update in updates:
            self.writer.apply(update)
        return []

    def packet_out(self, payload: bytes, metadata: dict[int, bytes]) -> None:
        """A PacketOut from the controller: the frame enters at the CPU port."""
        program = self.core.program
        header = packet_io.controller_header(program.info, "packet_out")
        md = [p4runtime_pb2.PacketMetadata(metadata_id=k, value=v) for k, v in metadata.items()]
        self.tm.inject(CPU_PORT, packet_io.build_packet_out(header, md, payload))
        self._serve()

    def _to_controller(self, frame: bytes) -> None:
        header = packet_io.controller_header(self.core.program.info, "packet_in")
        split = packet_io.split_packet_in(header, frame)
        if split is not None:
            metadata, payload = split
            self.packet_in(payload, {m.metadata_id: m.value for m in metadata})
