"""Which ports are up, as action selectors' watch ports see them.

A `PortStates` is a `PortUp` (called with a port, it answers whether the port is up) that
keeps ports 0..511, v1model's bit<9> port numbers, in a bitmap of down ports. A compiled
pipeline reads that bitmap in place (`p4emu.native`), so selecting a member of a watched
group needs no call into Python and a change shows at the next selection. Other port
numbers (P4Runtime's are 32-bit) are kept in a set, which the compiled pipeline asks
through the call. Every port starts up.
"""

from __future__ import annotations

BITMAP_PORTS = 512  # v1model's port numbers are bit<9>


class PortStates:
    """Ports' up/down state: `states(port)` is True while `port` is up."""

    def __init__(self) -> None:
        # bit (port % 8) of byte (port // 8) set: the port is down; shared with C, so
        # never resized (an exported bytearray cannot be)
        self.down_bitmap = bytearray(BITMAP_PORTS // 8)
        self._down_beyond: set[int] = set()

    def __call__(self, port: int) -> bool:
        if 0 <= port < BITMAP_PORTS:
            return not (self.down_bitmap[port >> 3] >> (port & 7)) & 1
        return port not in self._down_beyond

    def set_up(self, port: int, up: bool) -> None:
        if 0 <= port < BITMAP_PORTS:
            bit = 1 << (port & 7)
            if up:
                self.down_bitmap[port >> 3] &= ~bit & 0xFF
            else:
                self.down_bitmap[port >> 3] |= bit
        elif up:
            self._down_beyond.discard(port)
        else:
            self._down_beyond.add(port)
