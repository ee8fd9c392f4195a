"""Two-rate three-color meters with BMv2's semantics (docs/v1model.md §5).

Rates are in units (packets or bytes) per second, bursts in units, as in P4Runtime's
MeterConfig. Buckets start full; an unconfigured meter always says GREEN. The clock is
injected (µs) so tests can drive time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from p4emu.runtime.errors import IndexOutOfRange, InvalidEntry
from p4emu.runtime.model import MeterInfo, MeterUnit

log = logging.getLogger(__name__)

GREEN, YELLOW, RED = 0, 1, 2

Clock = Callable[[], int]


def monotonic_clock() -> Clock:
    """A µs clock that starts at 0 now."""
    start = time.monotonic_ns()
    return lambda: (time.monotonic_ns() - start) // 1000


@dataclass(frozen=True, slots=True)
class MeterConfig:
    cir: int  # committed rate, units/s
    cburst: int  # units
    pir: int  # peak rate, units/s
    pburst: int  # units

    def validate(self) -> None:
        if min(self.cir, self.cburst, self.pir, self.pburst) < 0:
            raise InvalidEntry("meter rates and bursts must be non-negative")
        # BMv2's Meter::set_rate refuses a committed rate above the peak rate
        # (INVALID_INFO_RATE_VALUE); the meter keeps its previous state
        if self.cir > self.pir:
            raise InvalidEntry(f"meter committed rate {self.cir} exceeds peak rate {self.pir}")


class MeterCell:
    """One meter instance: config plus the two token buckets."""

    __slots__ = ("config", "c_tokens", "p_tokens", "last_us")

    def __init__(self, config: MeterConfig | None = None, now_us: int = 0) -> None:
        self.config: MeterConfig | None = None
        self.c_tokens = 0.0
        self.p_tokens = 0.0
        self.last_us = 0
        if config is not None:
            self.configure(config, now_us)

    def configure(self, config: MeterConfig | None, now_us: int = 0) -> None:
        """Set (or with None, clear) the rates; buckets restart full."""
        if config is not None:
            config.validate()
            self.c_tokens = float(config.cburst)
            self.p_tokens = float(config.pburst)
        self.config = config
        self.last_us = now_us

    def execute(self, size: int, now_us: int) -> int:
        """Color of a packet of `size` units arriving at `now_us`."""
        cfg = self.config
        if cfg is None:
            return GREEN
        elapsed = max(0, now_us - self.last_us)
        self.last_us = max(self.last_us, now_us)
        self.p_tokens = min(float(cfg.pburst), self.p_tokens + elapsed * cfg.pir / 1e6)
        self.c_tokens = min(float(cfg.cburst), self.c_tokens + elapsed * cfg.cir / 1e6)
        # BMv2 checks the peak bucket first and takes nothing from either bucket on RED
        if self.p_tokens < size:
            return RED
        self.p_tokens -= size
        if self.c_tokens < size:
            return YELLOW
        self.c_tokens -= size
        return GREEN


class MeterArray:
    """An indexed `meter` extern."""

    def __init__(self, info: MeterInfo, clock_us: Clock) -> None:
        self.info = info
        self.clock_us = clock_us
        self.cells = [MeterCell() for _ in range(info.size)]

    def execute(self, index: int, packet_length: int, now_us: int | None = None) -> int | None:
        """Color for one packet; out-of-range index: logged, None (destination unchanged)."""
        if not 0 <= index < len(self.cells):
            log.error("meter %s: index %d out of range (size %d)", self.info.name, index,
                      len(self.cells))
            return None
        size = 1 if self.info.unit == MeterUnit.PACKETS else packet_length
        return self.cells[index].execute(size, self.clock_us() if now_us is None else now_us)

    def _check(self, index: int) -> None:
        if not 0 <= index < len(self.cells):
            raise IndexOutOfRange(f"meter {self.info.name}: index {index} out of range "
                               f"(size {len(self.cells)})")

    def set_config(self, index: int, config: MeterConfig | None) -> None:
        self._check(index)
        self.cells[index].configure(config, self.clock_us())

    def get_config(self, index: int) -> MeterConfig | None:
        self._check(index)
        return self.cells[index].config

    def reset(self) -> None:
        self.cells = [MeterCell() for _ in range(self.info.size)]
