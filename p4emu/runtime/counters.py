"""Indexed counter arrays (packets and bytes) and the per-entry data of direct counters."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from p4emu.runtime.errors import IndexOutOfRange
from p4emu.runtime.model import CounterInfo

log = logging.getLogger(__name__)


@dataclass(slots=True)
class CounterData:
    """One counter cell; both fields are always kept whatever the counter's unit."""

    packets: int = 0
    bytes: int = 0


class CounterArray:
    """An indexed `counter` extern."""

    def __init__(self, info: CounterInfo) -> None:
        self.info = info
        self.cells = [CounterData() for _ in range(info.size)]

    def count(self, index: int, packet_length: int) -> bool:
        """Count one packet of `packet_length` bytes; out-of-range index: logged, no update."""
        if not 0 <= index < len(self.cells):
            log.error("counter %s: index %d out of range (size %d)", self.info.name, index,
                      len(self.cells))
            return False
        cell = self.cells[index]
        cell.packets += 1
        cell.bytes += packet_length
        return True

    def _check(self, index: int) -> None:
        if not 0 <= index < len(self.cells):
            raise IndexOutOfRange(f"counter {self.info.name}: index {index} out of range "
                               f"(size {len(self.cells)})")

    def read(self, index: int) -> CounterData:
        self._check(index)
        cell = self.cells[index]
        return CounterData(cell.packets, cell.bytes)

    def write(self, index: int, packets: int, nbytes: int) -> None:
        self._check(index)
        self.cells[index] = CounterData(packets, nbytes)

    def reset(self) -> None:
        # in place: p4emu.native may have made `cells` a view of a buffer its C code writes
        cells = self.cells
        for i in range(len(cells)):
            cells[i] = CounterData()
