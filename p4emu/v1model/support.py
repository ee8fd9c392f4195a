"""Run-time helpers that generated pipeline code calls (header stacks, packet cursor,
parser errors, per-packet extern state, v1model extern helpers)."""

from __future__ import annotations

import logging
import random as _random
import struct

from p4emu.runtime.hashes import HASH_ALGORITHMS, pack_fields

log = logging.getLogger("p4emu.pipeline")

# error codes of core.p4 (declaration order)
NO_ERROR, PACKET_TOO_SHORT, NO_MATCH, STACK_OUT_OF_BOUNDS, HEADER_TOO_SHORT = 0, 1, 2, 3, 4
PARSER_TIMEOUT, PARSER_INVALID_ARGUMENT = 5, 6


class ParserError(Exception):
    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


class ExitSignal(Exception):
    """`exit`: ends the current top-level control. `outs` carries the out/inout values of
    the action being left, so its caller can still copy them out (as p4c does)."""

    outs: tuple = ()


class AssertionFailed(Exception):
    """v1model assert/assume failed: BMv2 aborts; p4emu drops the packet."""


class Packet:
    """Parser cursor over the received bytes (byte granularity, as BMv2 headers are)."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.end = len(data)

    def peek_bits(self, nbits: int) -> int:
        nbytes = (nbits + 7) >> 3
        chunk = self.data[self.pos:self.pos + nbytes]
        if len(chunk) < nbytes:
            raise ParserError(PACKET_TOO_SHORT)
        return int.from_bytes(chunk, "big") >> (nbytes * 8 - nbits)

    def peek_bits_unchecked(self, nbits: int) -> int:
        """lookahead in a select key: past the end reads as zeros."""
        nbytes = (nbits + 7) >> 3
        chunk = self.data[self.pos:self.pos + nbytes].ljust(nbytes, b"\0")
        return int.from_bytes(chunk, "big") >> (nbytes * 8 - nbits)

    def advance(self, nbits: int) -> None:
        if nbits % 8:
            raise ParserError(PARSER_INVALID_ARGUMENT)
        new = self.pos + (nbits >> 3)
        if new > self.end:
            raise ParserError(PACKET_TOO_SHORT)
        self.pos = new

    def total_length(self) -> int:
        return self.end


class Stack:
    """A header stack: `items` plus the `next` index."""

    __slots__ = ("items", "nxt", "cls")

    def __init__(self, cls, size: int):
        self.cls = cls
        self.items = [cls() for _ in range(size)]
        self.nxt = 0

    def copy(self) -> Stack:
        o = Stack.__new__(Stack)
        o.cls = self.cls
        o.items = [h.copy() for h in self.items]
        o.nxt = self.nxt
        return o

    def assign(self, o: Stack) -> None:
        for a, b in zip(self.items, o.items, strict=True):
            a.assign(b)
        self.nxt = o.nxt

    def equals(self, o: Stack) -> bool:
        return all(a.equals(b) for a, b in zip(self.items, o.items, strict=True))

    def at(self, i: int):
        """Element `i` for an index known only at run time. Out of range, the P4 spec
        (§8.18) leaves reads undefined and ignores writes: a detached invalid element gives
        both. (p4c's BMv2 code would abort there, unless, as in p4c's gauntlet_index_5-bmv2
        test, its mid end optimised the access away.)"""
        items = self.items
        return items[i] if i < len(items) else self.cls()

    def next_elem(self):
        if self.nxt >= len(self.items):
            raise ParserError(STACK_OUT_OF_BOUNDS)
        h = self.items[self.nxt]
        self.nxt += 1
        return h

    def last_elem(self):
        if self.nxt == 0:
            raise ParserError(STACK_OUT_OF_BOUNDS)
        return self.items[self.nxt - 1]

    def push_front(self, n: int) -> None:
        size = len(self.items)
        n = min(n, size)
        self.items = [self.cls() for _ in range(n)] + self.items[: size - n]
        self.nxt = min(self.nxt + n, size)

    def pop_front(self, n: int) -> None:
        size = len(self.items)
        n = min(n, size)
        self.items = self.items[n:] + [self.cls() for _ in range(n)]
        self.nxt = max(self.nxt - n, 0)

    def emit(self, out: bytearray) -> None:
        for h in self.items:
            h.emit(out)


class PacketState:
    """Per-packet, per-pass extern requests (clone, resubmit, digest, truncate ...)."""

    __slots__ = ("sm", "length", "now_us", "payload", "checksum_error", "clone", "resubmit",
                 "recirculate", "digest", "truncate", "meter_color", "len_delta")

    def __init__(self):
        self.reset(None, 0, 0)

    def reset(self, sm, length: int, now_us: int) -> None:
        self.sm = sm
        self.length = length
        self.now_us = now_us
        self.payload = b""
        self.checksum_error = 0
        self.clone = None  # (kind 1=I2E 2=E2E, session, field list fn or None)
        self.resubmit = None  # field list fn (or 0 meaning "no fields") when requested
        self.recirculate = None
        self.digest = None
        self.truncate = None
        self.meter_color = None
        self.len_delta = 0  # header bytes added (setValid) / removed (setInvalid)

    def request_clone(self, kind: int, session: int, field_list) -> None:
        self.clone = (kind, session, field_list)

    def request_truncate(self, n: int) -> None:
        self.truncate = n if self.truncate is None else min(self.truncate, n)


NO_FIELDS = 0  # a `*_preserving_field_list` request with no fields to keep


def hash_value(algo, base: int, data, max_: int) -> int:
    """v1model hash() of (value, width) pairs."""
    return hash_bytes(algo, base, pack_fields(data), max_)


def hash_bytes(algo, base: int, data: bytes, max_: int) -> int:
    """v1model hash() of already packed input bytes: (base + H mod max) in 64 bits."""
    h = algo(data)
    if max_ == 0:
        max_ = 1
    return (base + h % max_) & 0xFFFFFFFFFFFFFFFF


def random_value(lo: int, hi: int, rng: _random.Random | None = None) -> int | None:
    """v1model random(): uniform in [lo, hi] from the device's `rng` (the Pipeline binds
    it; without one, Python's shared generator)."""
    if lo > hi:
        log.warning("random: lo %d > hi %d, result unchanged", lo, hi)
        return None
    return (rng or _random).randint(lo, hi)


def log_msg(fmt: str, values: tuple) -> None:
    out = []
    vals = list(values)
    i = 0
    while i < len(fmt):
        if fmt.startswith("\\{", i) or fmt.startswith("\\}", i):
            out.append(fmt[i + 1])
            i += 2
        elif fmt.startswith("{}", i) and i > 0 and vals:
            out.append(str(vals.pop(0)))
            i += 2
        else:
            out.append(fmt[i])
            i += 1
    log.info("log_msg: %s", "".join(out))


def assertion_failed(where: str, what: str) -> None:
    log.error("%s failed at %s", what, where)
    raise AssertionFailed(f"{what} failed at {where}")


def generated_globals() -> dict:
    """Names every generated pipeline module can use."""
    g = {
        "ParserError": ParserError, "ExitSignal": ExitSignal, "Stack": Stack, "Struct": struct.Struct,
        "hash_value": hash_value, "hash_bytes": hash_bytes, "random_value": random_value, "pack_fields": pack_fields,
        "log_msg": log_msg, "assertion_failed": assertion_failed, "NO_FIELDS": NO_FIELDS,
        "PACKET_TOO_SHORT": PACKET_TOO_SHORT, "HEADER_TOO_SHORT": HEADER_TOO_SHORT, "PARSER_TIMEOUT": PARSER_TIMEOUT, "PARSER_INVALID_ARGUMENT": PARSER_INVALID_ARGUMENT,
    }
    for name, fn in HASH_ALGORITHMS.items():
        g[f"HASH_{name}"] = fn
    return g
