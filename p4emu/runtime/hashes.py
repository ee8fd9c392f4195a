"""v1model hash algorithms with BMv2's parameters (docs/v1model.md §5).

Each algorithm maps the packed input bytes to an unsigned int. BMv2 packs the fields
MSB-first and zero-pads the last byte at the end (`pack_fields`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable


def _crc16_arc_table() -> tuple[int, ...]:
    # reflected poly 0x8005 -> 0xA001
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_CRC16_TABLE = _crc16_arc_table()


def crc16(data: bytes) -> int:
    """CRC-16/ARC: poly 0x8005, init 0, reflected in/out, xorout 0."""
    crc = 0
    table = _CRC16_TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc


def crc32(data: bytes) -> int:
    """CRC-32 (IEEE 802.3), the same parameters as zlib."""
    return zlib.crc32(data) & 0xFFFFFFFF


def identity(data: bytes) -> int:
    """The first min(8, len) bytes as a big-endian integer."""
    return int.from_bytes(data[:8], "big")


def csum16(data: bytes) -> int:
    """Internet checksum: ~(one's-complement sum of big-endian 16-bit words)."""
    if len(data) % 2:
        data = data + b"\x00"
    total = 0
    for i in range(0, len(data), 2):
        total += (data[i] << 8) | data[i + 1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def xor16(data: bytes) -> int:
    """XOR of the big-endian 16-bit words, the tail zero-padded."""
    if len(data) % 2:
        data = data + b"\x00"
    result = 0
    for i in range(0, len(data), 2):
        result ^= (data[i] << 8) | data[i + 1]
    return result


HASH_ALGORITHMS: dict[str, Callable[[bytes], int]] = {
    "crc16": crc16,
    "crc32": crc32,
    # BMv2's custom variants default to the standard parameters
    "crc16_custom": crc16,
    "crc32_custom": crc32,
    "identity": identity,
    "csum16": csum16,
    "xor16": xor16,
}


def pack_fields(fields: Iterable[tuple[int, int]]) -> bytes:
    """Concatenate (value, bitwidth) pairs MSB-first, zero-padding the end to a byte."""
    acc = 0
    total_bits = 0
    for value, width in fields:
        acc = (acc << width) | (value & ((1 << width) - 1))
        total_bits += width
    pad = (-total_bits) % 8
    return (acc << pad).to_bytes((total_bits + pad) // 8, "big")


def make_packer(widths: Iterable[int]) -> Callable[[Iterable[int]], bytes]:
    """`pack_fields` for a fixed list of widths: values -> bytes, shifts precomputed."""
    widths = tuple(widths)
    total = sum(widths)
    pad = (-total) % 8
    nbytes = (total + pad) // 8
    plan = []
    shift = pad
    for width in reversed(widths):
        plan.append(((1 << width) - 1, shift))
        shift += width
    plan.reverse()
    if len(plan) == 1:
        mask, shift = plan[0]

        def pack_one(values: Iterable[int]) -> bytes:
            (value,) = values
            return ((value & mask) << shift).to_bytes(nbytes, "big")
        return pack_one
    steps = tuple(plan)

    def pack(values: Iterable[int]) -> bytes:
        acc = 0
        for value, (mask, shift) in zip(values, steps, strict=True):
            acc |= (value & mask) << shift
        return acc.to_bytes(nbytes, "big")
    return pack
