"""Checksums the dataplane tests compute on their own, independent of p4emu's code."""

from __future__ import annotations

import struct


def internet_checksum(data: bytes) -> int:
    """RFC 1071: one's complement of the one's-complement sum of 16-bit words."""
    if len(data) % 2:
        data += b"\x00"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF
