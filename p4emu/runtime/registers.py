"""Register arrays."""

from __future__ import annotations

import logging

from p4emu.runtime.errors import IndexOutOfRange, InvalidEntry
from p4emu.runtime.model import RegisterInfo

log = logging.getLogger(__name__)


class RegisterArray:
    """A `register<T>(size)` extern; values are unsigned ints of `bitwidth` bits."""

    def __init__(self, info: RegisterInfo) -> None:
        self.info = info
        self.mask = (1 << info.bitwidth) - 1
        self.values = [0] * info.size

    def read(self, index: int) -> int | None:
        """Data-plane read; out of range: logged, None (the destination stays unchanged)."""
        if 0 <= index < len(self.values):
            return self.values[index]
        log.error("register %s: read index %d out of range (size %d)", self.info.name, index,
                  len(self.values))
        return None

    def write(self, index: int, value: int) -> bool:
        """Data-plane write, wrapped to the width; out of range: logged, no update."""
        if 0 <= index < len(self.values):
            self.values[index] = value & self.mask
            return True
        log.error("register %s: write index %d out of range (size %d)", self.info.name, index,
                  len(self.values))
        return False

    def _check(self, index: int) -> None:
        if not 0 <= index < len(self.values):
            raise IndexOutOfRange(f"register {self.info.name}: index {index} out of range "
                               f"(size {len(self.values)})")

    def get(self, index: int) -> int:
        """Control-plane read; raises IndexOutOfRange when out of range."""
        self._check(index)
        return self.values[index]

    def set(self, index: int, value: int) -> None:
        """Control-plane write; raises InvalidEntry when out of range or too wide."""
        self._check(index)
        if not 0 <= value <= self.mask:
            raise InvalidEntry(f"register {self.info.name}: value {value} does not fit "
                               f"bit<{self.info.bitwidth}>")
        self.values[index] = value

    def reset(self) -> None:
        # in place: p4emu.native may have made `values` a buffer its C code writes
        values = self.values
        for i in range(len(values)):
            values[i] = 0
