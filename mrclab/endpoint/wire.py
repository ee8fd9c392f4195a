"""MRC-lite v1 constants and the fast struct codec the transport core uses.

The header is declared once, as the Scapy layer `mrclab.endpoint.layers.MRC`. `MrcHeader.pack`/
`unpack` (plain `struct`) exist because Scapy dissection is far too slow for the send/recv
data path; tests/unit/endpoint/test_wire_layers.py holds them byte-for-byte to that layer.

Conventions beyond the field meanings (docs/wire-format.md has both):

- ACK: `psn` is the DATA PSN answered, `ack` the cumulative ack (next PSN expected), and
  `offset` a SACK bitmap: bit i (value ``1 << i``) set means PSN ``ack + 1 + i`` was received.
- LAST DATA packet: `reserved` carries the CRC32 of the whole message; the message length is
  ``offset + length`` of that packet.
- Connection open: a PROBE with ``conn == 0`` carries the sender's 32-bit nonce in `reserved`,
  the message length in `offset` and the payload size per packet in `length`; the
  PROBE_REPLY carries the receiver-chosen `conn` and echoes the nonce.
"""

from __future__ import annotations

import struct
from enum import IntEnum, IntFlag
from typing import Final

MRC_UDP_PORT: Final = 4793
MRC_VERSION: Final = 1
HEADER_LEN: Final = 40
ETH_IP_UDP_LEN: Final = 14 + 20 + 8


def payload_fit(mtu: int) -> int:
    """Payload bytes of the largest MRC packet an interface of this IP MTU carries."""
    return mtu - (ETH_IP_UDP_LEN - 14) - HEADER_LEN


class MsgType(IntEnum):
    DATA = 0
    ACK = 1
    NACK = 2
    PROBE = 3
    PROBE_REPLY = 4


# Which end of a connection each type goes to: a host's sender and receiver share its
# interfaces, and each reads only its own (mrclab.endpoint.rawsocket.RawLink's `accept`)
TO_RECEIVER = frozenset({MsgType.DATA, MsgType.PROBE})
TO_SENDER = frozenset({MsgType.ACK, MsgType.NACK, MsgType.PROBE_REPLY})

# The types as plain ints, for the per-packet paths: compiled, an IntEnum member is an
# attribute looked up on its class and compared through Python's operators
DATA: Final = MsgType.DATA.value
ACK: Final = MsgType.ACK.value
NACK: Final = MsgType.NACK.value
PROBE: Final = MsgType.PROBE.value
PROBE_REPLY: Final = MsgType.PROBE_REPLY.value


class Flag(IntFlag):
    TRIMMED = 0x01
    ECN_ECHO = 0x02
    LAST = 0x04
    RETX = 0x08


# The flags as plain ints, for the per-packet paths: IntFlag's operators build enum
# members, which cost a receiver a tenth of its time per packet
TRIMMED: Final = Flag.TRIMMED.value
ECN_ECHO: Final = Flag.ECN_ECHO.value
LAST: Final = Flag.LAST.value
RETX: Final = Flag.RETX.value


# Field order and widths of mrclab.endpoint.layers.MRC: version+type share the first byte, then
# flags, ev, conn, psn, ack, offset, length, qmax, ts, route, reserved.
_HEADER: Final = struct.Struct("!BBHIIIIHHIQI")
assert _HEADER.size == HEADER_LEN


# An ACK's SACK bitmap (`offset`): bit i for PSN ack + 1 + i, 32 of them
SACK_MASK: Final = 0xFFFFFFFF

MAX_ROUTE_LABELS: Final = 8


def route_word(labels: tuple[int, ...] | list[int]) -> int:
    """The 64-bit `route` field of a source route: first hop's label in the top byte,
    unused bytes 0 (a switch in `source` mode takes the top byte and shifts left 8)."""
    if len(labels) > MAX_ROUTE_LABELS or any(not 0 < label < 256 for label in labels):
        raise ValueError(f"route {list(labels)}: at most {MAX_ROUTE_LABELS} labels, "
                         "each 1..255")
    word = 0
    for i, label in enumerate(labels):
        word |= label << (56 - 8 * i)
    return word


def parse_route(text: str) -> tuple[int, ...]:
    """Labels from their written form, first hop first: ``3,1,2``."""
    try:
        labels = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise ValueError(f"route {text!r} is not a comma-separated list of labels") from None
    route_word(labels)  # validates
    return labels


def parse_routes(texts: list[str], planes: int) -> tuple[tuple[int, ...], ...]:
    """Per plane, the `route` words of ``[PLANE:]L,L,...`` texts (PLANE: the position of
    the destination address, 0 when left out)."""
    words: list[list[int]] = [[] for _ in range(planes)]
    for text in texts:
        plane_text, sep, labels = text.rpartition(":")
        plane = 0
        if sep:
            if not plane_text.isdigit() or int(plane_text) >= planes:
                raise ValueError(f"route {text!r}: plane {plane_text!r} is not one of "
                                 f"0..{planes - 1}")
            plane = int(plane_text)
        words[plane].append(route_word(parse_route(labels)))
    while words and not words[-1]:
        words.pop()
    return tuple(tuple(w) for w in words)


class MalformedPacket(ValueError):
    """Raised for bytes that are not a valid MRC-lite v1 header."""


class MrcHeader:
    """One MRC header; field names as in the Scapy layer `mrclab.endpoint.layers.MRC`.

    A plain class rather than a dataclass: mypyc compiles its `__init__` (a dataclass's is
    generated at import and runs interpreted), and one is made per packet sent and
    received."""

    __slots__ = ("type", "flags", "ev", "conn", "psn", "ack", "offset", "length", "qmax",
                 "ts", "route", "reserved", "version")

    def __init__(self, type: int = MsgType.DATA, flags: int = 0, ev: int = 0, conn: int = 0,
                 psn: int = 0, ack: int = 0, offset: int = 0, length: int = 0, qmax: int = 0,
                 ts: int = 0, route: int = 0, reserved: int = 0,
                 version: int = MRC_VERSION) -> None:
        self.type = type
        self.flags = flags
        self.ev = ev
        self.conn = conn
        self.psn = psn
        self.ack = ack
        self.offset = offset
        self.length = length
        self.qmax = qmax
        self.ts = ts
        self.route = route
        self.reserved = reserved
        self.version = version

    def _fields(self) -> tuple[int, ...]:
        return (self.type, self.flags, self.ev, self.conn, self.psn, self.ack, self.offset,
                self.length, self.qmax, self.ts, self.route, self.reserved, self.version)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MrcHeader):
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        return (f"MrcHeader(type={self.type!r}, flags={self.flags!r}, ev={self.ev!r}, "
                f"conn={self.conn!r}, psn={self.psn!r}, ack={self.ack!r}, "
                f"offset={self.offset!r}, length={self.length!r}, qmax={self.qmax!r}, "
                f"ts={self.ts!r}, route={self.route!r}, reserved={self.reserved!r}, "
                f"version={self.version!r})")

    def pack(self) -> bytes:
        return _HEADER.pack(
            ((self.version & 0xF) << 4) | (self.type & 0xF),
            self.flags & 0xFF,
            self.ev & 0xFFFF,
            self.conn & 0xFFFFFFFF,
            self.psn & 0xFFFFFFFF,
            self.ack & 0xFFFFFFFF,
            self.offset & 0xFFFFFFFF,
            self.length & 0xFFFF,
            self.qmax & 0xFFFF,
            self.ts & 0xFFFFFFFF,
            self.route & 0xFFFFFFFFFFFFFFFF,
            self.reserved & 0xFFFFFFFF,
        )

    @staticmethod
    def unpack(data: bytes | memoryview, offset: int = 0) -> MrcHeader:
        """Parse 40 bytes at `offset`; MalformedPacket if short, wrong version or type."""
        if len(data) - offset < HEADER_LEN:
            raise MalformedPacket(f"truncated MRC header: {len(data) - offset} bytes")
        fields: tuple[int, ...] = _HEADER.unpack_from(data, offset)  # typed: plain C below
        vt, flags, ev, conn, psn, ack, off, length, qmax, ts, route, reserved = fields
        version, mtype = vt >> 4, vt & 0xF
        if version != MRC_VERSION:
            raise MalformedPacket(f"unknown MRC version {version}")
        if mtype > PROBE_REPLY:
            raise MalformedPacket(f"unknown MRC type {mtype}")
        return MrcHeader(mtype, flags, ev, conn, psn, ack, off, length, qmax, ts, route,
                         reserved, version)

    def has(self, flag: Flag) -> bool:
        return bool(self.flags & flag)


def sacked_psns(cum_ack: int, bitmap: int) -> list[int]:
    """The PSNs a SACK bitmap reports as received."""
    psns = []
    bitmap &= SACK_MASK
    while bitmap:  # set bits only: a sender reads one on every ACK, and most have 0-3
        low = bitmap & -bitmap
        psns.append(cum_ack + low.bit_length())
        bitmap ^= low
    return psns
