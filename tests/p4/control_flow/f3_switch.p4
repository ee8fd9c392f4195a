// switch statements: on a table's action_run with default and fallthrough labels, on
// bit<N> values and on enums; empty statements, nested blocks, if-without-else chains,
// chained conditional operators, exit inside a switch case.
#include <core.p4>
#include <v1model.p4>

enum Kind { A, B, C }
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers { h_t h; }
struct meta_t { Kind k; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action a1() { hdr.h.b = 1; }
    action a2() { hdr.h.b = 2; }
    action a3() { hdr.h.b = 3; }
    action a4() { hdr.h.b = 4; }
    table t {
        key = { hdr.h.a : exact; }
        actions = { a1; a2; a3; a4; }
        const entries = { 1 : a1(); 2 : a2(); 3 : a3(); 4 : a4(); }
        default_action = a4();
    }
    apply {
        sm.egress_spec = 1;
        ;
        switch (t.apply().action_run) {
            a1:
            a2: { hdr.h.c = 0x12; }
            a3: { hdr.h.c = 0x33; }
            default: { hdr.h.c = 0xdd; }
        }
        switch (hdr.h.a) {
            8w1: { hdr.h.d = 0x10; }
            2:
            3: { hdr.h.d = 0x23; }
            9: { exit; }
            default: { hdr.h.d = hdr.h.a; }
        }
        if (hdr.h.a == 5) { meta.k = Kind.A; }
        else if (hdr.h.a == 6) { meta.k = Kind.B; }
        else { meta.k = Kind.C; }
        switch (meta.k) {
            Kind.A: { hdr.h.d = hdr.h.d + 0x50; }
            Kind.B: { }
        }
        {
            { ; }
            if (hdr.h.a == 7) { hdr.h.d = 0x77; }
        }
        hdr.h.a = hdr.h.a == 1 ? 8w0xa1 : hdr.h.a == 2 ? 8w0xa2 : hdr.h.a > 5 ? 8w0xa6 : 8w0;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
