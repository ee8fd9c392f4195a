"""Random values through one program of hashes over odd widths and of operators on
unsigned and signed values (masking, wrapping, shifts by run-time amounts, slices,
concatenation, casts, saturation): the native pipeline's outputs must be the Python
pipeline's, bit for bit."""

from __future__ import annotations

import random

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.native import load_native
from p4emu.native.pipeline import NativePipeline
from p4emu.runtime.device import DeviceState
from p4emu.v1model.pipeline import Pipeline

PROGRAM = r"""
#include <core.p4>
#include <v1model.p4>
header in_t {
    bit<13> a; bit<3> b; bit<64> c; bit<1> d; bit<47> e; bit<8> s; bit<32> x; bit<32> y;
    int<16> p; int<16> q; bit<8> sh;
}
header out_t {
    bit<16> h16; bit<32> h32; bit<16> hcs; bit<16> hx; bit<64> hid;
    bit<32> add; bit<32> sub; bit<32> mul; bit<32> shl; bit<32> shr; bit<64> shl64;
    bit<32> neg; bit<32> inv; bit<16> slice; bit<64> cat; bit<8> narrow; bit<32> sat_add;
    bit<32> sat_sub; int<16> padd; int<16> pmul; int<16> pshr; int<16> pshl; int<16> psat;
    int<16> pneg; bit<16> pcast; int<16> ucast; bit<8> cmp; bit<32> tern; bit<32> div;
}
struct headers { in_t i; out_t o; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.i); pkt.extract(hdr.o); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        in_t i = hdr.i;
        hash(hdr.o.h16, HashAlgorithm.crc16, 16w0, { i.a, i.b, i.c, i.d, i.e }, 32w65536);
        hash(hdr.o.h32, HashAlgorithm.crc32, 32w7, { i.e, i.d, i.a }, 64w4294967296);
        hash(hdr.o.hcs, HashAlgorithm.csum16, 16w0, { i.a, i.c, i.d }, 32w65536);
        hash(hdr.o.hx, HashAlgorithm.xor16, 16w0, { i.b, i.e }, 32w65536);
        hash(hdr.o.hid, HashAlgorithm.identity, 64w0, { i.c, i.a }, 64w0);
        hdr.o.add = i.x + i.y;
        hdr.o.sub = i.x - i.y;
        hdr.o.mul = i.x * i.y;
        hdr.o.shl = i.x << i.sh;
        hdr.o.shr = i.x >> i.sh;
        hdr.o.shl64 = i.c << i.sh;
        hdr.o.neg = -i.x;
        hdr.o.inv = ~i.y;
        hdr.o.slice = i.c[40:25];
        hdr.o.cat = i.x ++ i.y;
        hdr.o.narrow = (bit<8>)i.x;
        hdr.o.sat_add = i.x |+| i.y;
        hdr.o.sat_sub = i.x |-| i.y;
        hdr.o.padd = i.p + i.q;
        hdr.o.pmul = i.p * i.q;
        hdr.o.pshr = i.p >> i.sh;
        hdr.o.pshl = i.p << i.sh;
        hdr.o.psat = i.p |+| i.q;
        hdr.o.pneg = -i.p;
        hdr.o.pcast = (bit<16>)i.p;
        hdr.o.ucast = (int<16>)i.x[15:0];
        hdr.o.cmp = ((bit<1>)(i.p < i.q)) ++ (bit<7>)((bit<1>)(i.x >= i.y));
        hdr.o.tern = i.p > 0 ? i.x : i.y;
        hdr.o.div = i.x / 7 + i.y % 13;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.i); pkt.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""
IN_BYTES = (13 + 3 + 64 + 1 + 47 + 8 + 32 + 32 + 16 + 16 + 8) // 8
OUT_BYTES = 2 + 4 + 2 + 2 + 8 + 4 * 5 + 8 + 4 + 4 + 2 + 8 + 1 + 4 + 4 + 2 * 8 + 1 + 4 + 4


@pytest.fixture(scope="module")
def pipelines(tmp_path_factory):
    src = tmp_path_factory.mktemp("ops") / "ops.p4"
    src.write_text(PROGRAM)
    program = load_ir(compile_file(str(src)).ir)
    load_native(program)
    return [make(program, DeviceState.from_program(program.info, clock_us=lambda: 0))
            for make in (Pipeline, NativePipeline)]


def test_random_values_same_as_python(pipelines):
    py, nat = pipelines
    rng = random.Random(5)
    edges = [b"\x00", b"\xff", b"\x80", b"\x7f", b"\x01"]
    for k in range(3000):
        if k % 3 == 0:  # runs of edge bytes: zero, all ones, sign bits
            data = b"".join(rng.choice(edges) for _ in range(IN_BYTES))
        else:
            data = bytes(rng.randrange(256) for _ in range(IN_BYTES))
        shift = bytes([rng.choice((0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 200, rng.randrange(256)))])
        frame = data[:-1] + shift + bytes(OUT_BYTES)
        out = py.process(0, frame, k)
        assert len(out) == 1 and len(out[0][1]) == len(frame)
        assert nat.process(0, frame, k) == out, frame.hex()
