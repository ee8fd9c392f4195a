"""A simulated switch: p4emu's `SwitchCore`, compiled pipeline and `TrafficManager`, the
objects `p4emu switch` runs, on the event loop's clock, with ports that are links.

Nothing of the data path is modelled here: a frame that reaches a port goes through the
traffic manager's ingress (the P4 ingress, then the egress queues with their depth
limits, strict priorities and line rate); when a queue releases a packet the P4 egress
runs and the frame leaves on the port's link at the time its service began.

On a native fabric (`mrclab.sim.fabric_core`) a switch whose pipeline and traffic manager
are compiled joins the C loop: frames from its wires and its serve timer are handled there
with the same steps (`receive`, `_serve`, `_arm` below), and this object runs only what
comes from Python (a PacketOut).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from p4.v1 import p4runtime_pb2

from mrclab.endpoint.clock import DeadlineTimer, EventLoop
from mrclab.sim.program import CPU_PORT, CompiledProgram
from p4emu.native.compiled_pipeline import CompiledPipeline
from p4emu.switch import packet_io
from p4emu.switch.core import SwitchCore
from p4emu.switch.entity_writes import EntityWriter
from p4emu.switch.native_traffic_manager import NativeTrafficManager, traffic_manager_class
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
                 traffic_manager: str = "auto", native_loop=None) -> None:
        """`rng`: what the P4 program's random() draws from (the simulator seeds one per
        switch, so the same seed repeats a run); `traffic_manager`: see
        `p4emu.switch.native_traffic_manager.traffic_manager_class`; `native_loop`: the
        network's `SimLoop` when its fabric is native (`loop` itself), None else."""
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
        # this switch's index in the native loop, which then runs its data path and timer
        self.native_index: int | None = None
        if native_loop is not None and self._native_capable():
            self.native_index = native_loop.add_switch(
                self.tm._server(self.core.program), self._epoch, self.core.clock_source()[1])

    def _native_capable(self) -> bool:
        """Whether the C loop can run this switch's data path as `receive` and `_serve`
        do: the compiled traffic manager over a compiled pipeline, every frame through
        its server (no pcaps, no per-packet debug line)."""
        tm, program = self.tm, self.core.program
        return (isinstance(tm, NativeTrafficManager) and program is not None
                and isinstance(program.pipeline, CompiledPipeline) and not tm._python_only())

    # --- data plane
    def receive(self, port: int, frame: bytes) -> None:
        """A frame arrived on `port` now."""
        self._arm(self.tm.receive_due(port, frame))

    def _serve(self) -> None:
        self._arm(self.tm.serve_due())

    def _arm(self, ready_us: float | None) -> None:
        """Come back when the queues next release a packet (`ready_us`, queue clock)."""
        if self.native_index is not None:  # the timer is the C loop's (the same steps)
            self.loop.switch_arm(self.native_index, ready_us)
        elif ready_us is not None:
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
