"""P4Runtime bytestrings <-> ints, with the spec's width checks.

A server accepts any length (spec 1.4 "Bytestrings": canonical, padded, or with more
leading zero bytes than the width needs, so clients of a narrower or wider program keep
working) as long as the value fits the width; an empty string or a value with bits set
above the width is INVALID_ARGUMENT, PI's code (bytestring_p4rt_to_pi) and the one the
spec's match-field rules ask for. Reads answer in canonical form.
"""

from __future__ import annotations

from p4emu.switch.p4rt_errors import invalid


def decode(data: bytes, bitwidth: int, what: str) -> int:
    """The unsigned value of `data` for a field of `bitwidth` bits."""
    if not data:
        raise invalid(f"{what}: empty bytestring")
    value = int.from_bytes(data, "big")
    if value >> bitwidth:
        raise invalid(f"{what}: value 0x{value:x} does not fit bit<{bitwidth}>")
    return value


def encode(value: int) -> bytes:
    """Canonical bytestring of a non-negative int."""
    if value < 0:
        raise ValueError("bytestrings encode non-negative values")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")
