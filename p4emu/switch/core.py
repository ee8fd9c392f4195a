"""State shared by the P4Runtime server, the traffic manager and the runtime control."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from p4emu.switch.program import LoadedProgram

log = logging.getLogger(__name__)


class SwitchCore:
    """One switch: device id, CPU port, the committed program and the hooks between parts.

    `lock` serialises the data plane (one packet's ingress or egress) with control-plane
    changes, so a Write batch never sees half a packet and vice versa.
    """

    def __init__(self, device_id: int = 0, cpu_port: int | None = None,
                 clock_ns: Callable[[], int] = time.monotonic_ns) -> None:
        """`clock_ns`: the time source (a simulator passes its virtual clock)."""
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.lock = threading.RLock()
        self.program: LoadedProgram | None = None
        self._clock_ns = clock_ns
        self._start_ns = clock_ns()
        self.port_up: Callable[[int], bool] = lambda port: True
        # set by the traffic manager: enqueue a frame as received on a port
        self.inject: Callable[[int, bytes], None] = lambda port, frame: None
        # set by the P4Runtime server: a frame the pipeline sent to the CPU port
        self.packet_in: Callable[[bytes], None] = lambda frame: None
        self._program_listeners: list[Callable[[LoadedProgram], None]] = []

    def clock_us(self) -> int:
        """µs since switch start, the unit of BMv2's timestamps."""
        return (self._clock_ns() - self._start_ns) // 1000

    def queue_clock_us(self) -> float:
        """The same clock to the ns, for the queue model: at 100 Gb/s a frame takes a
        fraction of a µs, which the P4-visible µs would round away."""
        return (self._clock_ns() - self._start_ns) / 1000

    def clocks(self) -> tuple[float, int]:
        """(queue_clock_us(), clock_us()) from one reading of the clock: a traffic
        manager's pass sees one instant (and reads the clock once per packet)."""
        ns = self._clock_ns() - self._start_ns
        return ns / 1000, ns // 1000

    @property
    def real_time(self) -> bool:
        """Whether the clock is time.monotonic's (a lab switch), not a simulator's."""
        return self._clock_ns is time.monotonic_ns

    def clock_source(self) -> tuple[Callable[[], int], int]:
        """(clock_ns, the reading at switch start): what `clocks` computes from, for a
        compiled traffic manager that reads the clock itself."""
        return self._clock_ns, self._start_ns

    def on_program_change(self, listener: Callable[[LoadedProgram], None]) -> None:
        self._program_listeners.append(listener)

    def install(self, program: LoadedProgram) -> None:
        with self.lock:
            self.program = program
            for listener in self._program_listeners:
                listener(program)
        log.info("pipeline set: %d tables, %d actions, cookie %d", len(program.info.tables),
                 len(program.info.actions), program.cookie)
