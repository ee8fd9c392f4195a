"""Headers extracted and emitted through their struct layout (p4emu/compiler/header_layout.py)
read and write exactly the bits the one-integer code does: sub-byte fields, signed fields,
bools, a field over several struct codes, a struct field; a header whose words fit no code
keeps the one-integer code."""

from __future__ import annotations

import os
import random

import pytest

from p4emu.compiler import load_ir
from p4emu.compiler.header_layout import code_sizes, header_words
from p4emu.frontend import compile_file
from p4emu.runtime.device import DeviceState
from p4emu.v1model.pipeline import Pipeline
from p4emu.v1model.support import Packet, ParserError

PROGRAM = os.path.join(os.path.dirname(__file__), "programs", "header_layouts.p4")
# (field, width, signed) of mixed_h, wire order
MIXED = [("a", 4, False), ("b", 4, True), ("mac", 48, False), ("flag", 1, False),
         ("pad", 7, False), ("f", 3, False), ("off", 13, False), ("addr", 128, False),
         ("tri", 24, False), ("s16", 16, True), ("pair", 16, False)]
MIXED_BYTES = sum(w for _, w, _ in MIXED) // 8


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    program = load_ir(compile_file(PROGRAM).ir)
    return Pipeline(program, DeviceState.from_program(program.info, clock_us=lambda: 0))


def header_class(pipeline: Pipeline, p4name: str):
    return next(v for v in pipeline.ns.values()
                if isinstance(v, type) and getattr(v, "p4name", None) == p4name)


def reference_fields(data: bytes) -> dict[str, int]:
    """The fields of mixed_h in `data`, read bit by bit from the front."""
    v = int.from_bytes(data[:MIXED_BYTES], "big")
    pos = MIXED_BYTES * 8
    out = {}
    for name, width, signed in MIXED:
        pos -= width
        x = (v >> pos) & ((1 << width) - 1)
        if signed and x >> (width - 1):
            x -= 1 << width
        out[name] = x
    return out


def test_the_words_and_codes():
    assert code_sizes(6) == (4, 2) and code_sizes(16) == (8, 8) and code_sizes(3) == (2, 1)
    words = header_words([(n, w, s, "bits") for n, w, s in MIXED])
    assert [[f[0] for f in word.fields] for word in words] == [
        ["a", "b"], ["mac"], ["flag", "pad"], ["f", "off"], ["addr"], ["tri"], ["s16"], ["pair"]]
    assert header_words([("x", 12, False, "bits"), ("y", 12, False, "bits")]) is None
    assert header_words([("x", 4, False, "bits")]) is None  # not whole bytes


def test_extract_reads_every_field_as_the_bits_say(pipeline):
    cls = header_class(pipeline, "mixed_h")
    rng = random.Random(7)
    for _ in range(300):
        data = rng.randbytes(MIXED_BYTES + 5)
        h = cls()
        pk = Packet(data)
        h.extract(pk)
        want = reference_fields(data)
        got = {n: getattr(h, f"f_{n}") for n, _, _ in MIXED}
        got["flag"] = int(got["flag"])
        got["pair"] = (h.f_pair.f_p << 8) | h.f_pair.f_q
        assert got == want and h.valid and pk.pos == MIXED_BYTES
        out = bytearray()
        h.emit(out)
        assert bytes(out) == data[:MIXED_BYTES]


def test_a_short_packet_is_a_parser_error(pipeline):
    cls = header_class(pipeline, "mixed_h")
    with pytest.raises(ParserError):
        cls().extract(Packet(bytes(MIXED_BYTES - 1)))


def test_through_the_pipeline_with_signed_arithmetic(pipeline):
    rng = random.Random(11)
    for _ in range(100):
        data = rng.randbytes(MIXED_BYTES + 3 + 10)  # mixed, odd, payload
        [(port, out)] = pipeline.process(0, data)
        want = reference_fields(data)
        got = reference_fields(out)
        # s16 - 1 and b + 1, wrapping as int<16> and int<4>
        assert got["s16"] == ((want["s16"] - 1 + 2**15) % 2**16) - 2**15
        assert got["b"] == ((want["b"] + 1 + 2**3) % 2**4) - 2**3
        assert port == 1
        assert {k: v for k, v in got.items() if k not in ("s16", "b")} == \
               {k: v for k, v in want.items() if k not in ("s16", "b")}
        assert out[MIXED_BYTES:] == data[MIXED_BYTES:]  # odd_h (one-integer code), payload
