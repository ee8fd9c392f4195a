// p4c: accepts. One table applied in both branches of an if, both continuing at the same
// statement: BMv2 has one node per table, and p4c merges the two applications when their
// successors agree (CFG::checkMergeable; p4c testdata copyprop1.p4, issue986-1-bmv2.p4).
// Different successors are an error (issue986-bmv2.p4, test_verdicts.py).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set_b(bit<8> v) { hdr.h.b = v; }
    table t {
        key = { hdr.h.a : exact; }
        actions = { set_b; NoAction; }
        const entries = { 1 : set_b(0x11); 3 : set_b(0x33); }
        default_action = NoAction();
    }
    apply {
        if (hdr.h.a == 1) {
            t.apply();
        } else {
            hdr.h.a = hdr.h.a + 1;
            t.apply();
        }
        sm.egress_spec = 1;
    }
}
control NoCk(inout headers hdr, inout meta_t m) { apply { } }
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), NoCk(), I(), E(), NoCk(), D()) main;
