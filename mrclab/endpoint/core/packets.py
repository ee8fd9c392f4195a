"""What the core hands to its driver: a header, an optional payload and the plane to use."""

from __future__ import annotations

from mrclab.endpoint.wire import MrcHeader


class Outgoing:
    """One packet to transmit; `plane` indexes the sender's planes (receivers reply on the
    plane the triggering packet came in on, so they leave it 0). A plain class, one per
    packet: see `MrcHeader`."""

    __slots__ = ("header", "payload", "plane")

    def __init__(self, header: MrcHeader, payload: bytes | memoryview = b"",
                 plane: int = 0) -> None:
        self.header = header
        self.payload = payload
        self.plane = plane


def ts_us(now: float) -> int:
    """The 32-bit wrapping microsecond timestamp carried in `ts`."""
    return int(now * 1_000_000) & 0xFFFFFFFF


def ts_age(now: float, ts: int) -> float:
    """Seconds since a `ts` value was stamped (correct across one 32-bit wrap)."""
    return ((ts_us(now) - ts) & 0xFFFFFFFF) / 1_000_000


def ts_grid(t: float) -> float:
    """`t` on the `ts` clock's microsecond grid (unwrapped): comparable with
    `echoed_send_time` exactly."""
    return int(t * 1_000_000) / 1_000_000


def echoed_send_time(now: float, ts: int) -> float:
    """When the packet whose `ts` an ACK echoes was sent, on the `ts_grid`."""
    tick = int(now * 1_000_000)
    return (tick - ((tick - ts) & 0xFFFFFFFF)) / 1_000_000
