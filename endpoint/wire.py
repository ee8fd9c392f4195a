"""MRC-lite v1 wire format: the one field table, plus fast pack/unpack for the core.

The Scapy layer (`endpoint.layers`) builds its fields from `HEADER_FIELDS`, so the format is
defined once. The transport core and the socket loop use `MrcHeader.pack`/`unpack` (plain
`struct`), which is much faster than Scapy dissection on the data path.

Conventions beyond DESIGN.md (documented here because they live in header fields):

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
from dataclasses import dataclass
from enum import IntEnum, IntFlag

MRC_UDP_PORT = 4793
MRC_VERSION = 1
HEADER_LEN = 40
ETH_IP_UDP_LEN = 14 + 20 + 8


class MsgType(IntEnum):
    DATA = 0
    ACK = 1
    NACK = 2
    PROBE = 3
    PROBE_REPLY = 4


class Flag(IntFlag):
    TRIMMED = 0x01
    ECN_ECHO = 0x02
    LAST = 0x04
    RETX = 0x08


TYPE_NAMES: dict[int, str] = {t.value: t.name for t in MsgType}
VERSION_NAMES: dict[int, str] = {MRC_VERSION: "v1"}
# Bit i of the flags byte -> name (order is what Scapy's FlagsField expects).
FLAG_NAMES: list[str] = ["TRIMMED", "ECN_ECHO", "LAST", "RETX", "F4", "F5", "F6", "F7"]

# (name, bits, kind); kind tells the Scapy layer how to show the field.
HEADER_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("version", 4, "version"),
    ("type", 4, "type"),
    ("flags", 8, "flags"),
    ("ev", 16, "hex"),
    ("conn", 32, "hex"),
    ("psn", 32, "int"),
    ("ack", 32, "int"),
    ("offset", 32, "int"),
    ("length", 16, "int"),
    ("qmax", 16, "int"),
    ("ts", 32, "int"),
    ("route", 64, "hex"),
    ("reserved", 32, "hex"),
)


def _struct_format(fields: tuple[tuple[str, int, str], ...]) -> str:
    """Derive the struct format from the field table (two 4-bit fields share one byte)."""
    codes = {8: "B", 16: "H", 32: "I", 64: "Q"}
    fmt, pending_bits = "!", 0
    for _name, bits, _kind in fields:
        if bits < 8:
            pending_bits += bits
            if pending_bits == 8:
                fmt, pending_bits = fmt + "B", 0
            continue
        fmt += codes[bits]
    return fmt


_HEADER = struct.Struct(_struct_format(HEADER_FIELDS))
assert _HEADER.size == HEADER_LEN, "field table does not add up to 40 bytes"


class MalformedPacket(ValueError):
    """Raised for bytes that are not a valid MRC-lite v1 header."""


@dataclass(slots=True)
class MrcHeader:
    """One MRC header, field names as in DESIGN.md."""

    type: int = MsgType.DATA
    flags: int = 0
    ev: int = 0
    conn: int = 0
    psn: int = 0
    ack: int = 0
    offset: int = 0
    length: int = 0
    qmax: int = 0
    ts: int = 0
    route: int = 0
    reserved: int = 0
    version: int = MRC_VERSION

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

    @classmethod
    def unpack(cls, data: bytes | memoryview, offset: int = 0) -> MrcHeader:
        """Parse 40 bytes at `offset`; MalformedPacket if short, wrong version or type."""
        if len(data) - offset < HEADER_LEN:
            raise MalformedPacket(f"truncated MRC header: {len(data) - offset} bytes")
        vt, flags, ev, conn, psn, ack, off, length, qmax, ts, route, reserved = (
            _HEADER.unpack_from(data, offset)
        )
        version, mtype = vt >> 4, vt & 0xF
        if version != MRC_VERSION:
            raise MalformedPacket(f"unknown MRC version {version}")
        if mtype > MsgType.PROBE_REPLY:
            raise MalformedPacket(f"unknown MRC type {mtype}")
        return cls(mtype, flags, ev, conn, psn, ack, off, length, qmax, ts, route, reserved,
                   version)

    def has(self, flag: Flag) -> bool:
        return bool(self.flags & flag)


def sack_bitmap(cum_ack: int, received: set[int] | frozenset[int]) -> int:
    """SACK bitmap of the 32 PSNs after `cum_ack` (bit i = PSN cum_ack + 1 + i)."""
    bitmap = 0
    for i in range(32):
        if cum_ack + 1 + i in received:
            bitmap |= 1 << i
    return bitmap


def sacked_psns(cum_ack: int, bitmap: int) -> list[int]:
    """The PSNs a SACK bitmap reports as received."""
    return [cum_ack + 1 + i for i in range(32) if bitmap >> i & 1]
