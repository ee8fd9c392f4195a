"""Evaluation order of calls with side effects inside expressions (p4c SideEffectOrdering):
operands and arguments left to right, `&&`/`||`/`?:` evaluate the lazy side only when
needed. The cases here complement tests/p4/expressions/fid_side_effects.order.stf."""

import pytest

from p4emu.frontend import compile_file
from p4emu.runtime.device import DeviceState
from p4emu.v1model.pipeline import Pipeline

PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> a; bit<8> c; bit<8> d; }
struct headers { h_t h; }
struct meta_t { }
struct pair_t { bit<8> x; bit<8> y; }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
bit<8> bump(inout bit<8> v) { v = v + 1; return v; }
bit<8> twice(inout bit<8> x, in bit<8> y) { x = x + y; return x; }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<8>>(16) r;
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 0) {
            hdr.h.d = twice(hdr.h.a, bump(hdr.h.a));
        } else if (hdr.h.op == 1) {
            hdr.h.c = (hdr.h.a == 9 || bump(hdr.h.a) == 4) ? 8w1 : 8w2;
        } else if (hdr.h.op == 2) {
            hdr.h.c = hdr.h.a == 9 ? 8w7 : bump(hdr.h.a);
        } else if (hdr.h.op == 3) {
            pair_t p = { x = hdr.h.a, y = bump(hdr.h.a) };
            hdr.h.c = p.x;
            hdr.h.d = p.y;
        } else if (hdr.h.op == 4) {
            hdr.h.c = hdr.h.a + (hdr.h.a == 3 ? bump(hdr.h.a) : 8w0) + hdr.h.a;
        } else if (hdr.h.op == 5) {
            if (hdr.h.a == 9) {
                hdr.h.c = 9;
            } else if (bump(hdr.h.a) == 4 && bump(hdr.h.a) == 5) {
                hdr.h.c = 1;
            }
        } else if (hdr.h.op == 6) {
            r.write((bit<32>)hdr.h.a, bump(hdr.h.a));
            r.read(hdr.h.c, 32w3);
        }
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    src = tmp_path_factory.mktemp("order") / "order.p4"
    src.write_text(PROGRAM)
    program = compile_file(str(src)).program
    return Pipeline(program, DeviceState.from_program(program.info))


@pytest.mark.parametrize("op, a, expect", [
    # x is copied in (3) before bump runs: y = 4, a := 3 + 4
    (0, 3, (7, 0, 7)),
    # left of || is false: bump runs
    (1, 3, (4, 1, 0)),
    # the else arm is chosen: bump runs once
    (2, 3, (4, 4, 0)),
    # struct fields in written order: x reads a before bump
    (3, 3, (4, 3, 4)),
    # 3 + (bump -> 4) + 4: the left operand is read before the call, the right after
    (4, 3, (4, 11, 0)),
    # else-if condition with side effects on both sides of &&
    (5, 3, (5, 1, 0)),
    # extern arguments too: the index is read before bump runs (writes r[3] := 4)
    (6, 3, (4, 4, 0)),
])
def test_side_effect_order(pipeline, op, a, expect):
    ((port, data),) = pipeline.process(0, bytes([op, a, 0, 0]))
    assert port == 1 and tuple(data[1:]) == expect


STACK_PROGRAM = """
#include <core.p4>
#include <v1model.p4>
header i_t { bit<8> idx; }
header h_t { bit<8> v; }
struct headers { i_t i; h_t[4] h; }
struct meta_t { }
parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.i); pk.extract(hdr.h.next); pk.extract(hdr.h.next);
                  pk.extract(hdr.h.next); pk.extract(hdr.h.next); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
bit<8> postincr(inout bit<8> i) { bit<8> old = i; i = i + 1; return old; }
bit<8> reset(inout bit<8> i) { i = 0; return 0x55; }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h[postincr(hdr.i.idx) & 3].v |= 0x10;   // the index is evaluated once
        hdr.h[hdr.i.idx].v = reset(hdr.i.idx);      // ... and before the right side
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.i); pk.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
"""


def test_left_side_stack_index_evaluated_once_and_first(tmp_path):
    # p4c testdata opassign2-bmv2.p4 (`h[postincr(i)].x |= v`) and gauntlet_index_7-bmv2.p4
    # (`h[i].v = f(i)` with f changing i): idx 1 -> h[1] |= 0x10, idx 2, h[2] = 0x55, idx 0
    path = tmp_path / "stack_order.p4"
    path.write_text(STACK_PROGRAM)
    result = compile_file(str(path))
    pl = Pipeline(result.program, DeviceState.from_program(result.info))
    assert pl.process(0, b"\x01\x00\x01\x02\x03") == [(1, b"\x00\x00\x11\x55\x03")]
