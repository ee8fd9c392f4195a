// Table breadth: keys on isValid(), slices, computed expressions and @name'd keys;
// lpm, range and optional keys with const entries; const default_action with
// arguments; apply().hit / .miss in conditions; actions with `in` and directionless
// parameters; a keyless table; a table applied inside a nested if in another control.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<16> c; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; }
header o_t { bit<8> v; }
struct headers { h_t h; o_t o; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a[7:7]) { 1: opt; default: accept; }
    }
    state opt { pkt.extract(hdr.o); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action r1(bit<8> v) { hdr.h.r1 = v; }
    action r2(bit<8> v, bit<8> w) { hdr.h.r2 = v ^ w; }
    action r3(bit<8> v) { hdr.h.r3 = v; }
    action r4() { hdr.h.r4 = hdr.h.r4 + 1; }
    table t_valid {
        key = { hdr.o.isValid() : exact @name("o_valid"); hdr.h.a[3:0] : ternary @name("low"); }
        actions = { r1; }
        const entries = {
            (true, 0x1 &&& 0xf) : r1(0x11);
            (true, _) : r1(0x12);
            (false, 0x0 &&& 0x8) : r1(0x13);
        }
        const default_action = r1(0x1f);
    }
    table t_lpm {
        key = { hdr.h.c : lpm; }
        actions = { r2; }
        const entries = {
            0x1200 &&& 0xff00 : r2(0x20, 0x01);
            0x1234 : r2(0x20, 0x02);
            _ : r2(0x20, 0x03);
        }
    }
    table t_range {
        key = { hdr.h.b : range; hdr.h.a : optional; }
        actions = { r3; NoAction; }
        const entries = {
            (0x00 .. 0x0f, 0x02) : r3(0x31);
            (0x00 .. 0x0f, _) : r3(0x32);
            (0x10 .. 0x1f, _) : r3(0x33);
        }
        default_action = NoAction();
    }
    table t_keyless { actions = { r4; } default_action = r4(); }
    table t_expr {
        key = { hdr.h.a + hdr.h.b : exact @name("sum"); }
        actions = { r4; NoAction; }
        const entries = { 0x30 : r4(); }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        t_valid.apply();
        if (t_lpm.apply().hit) {
            if (!t_range.apply().miss) { t_keyless.apply(); }
        }
        t_expr.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
