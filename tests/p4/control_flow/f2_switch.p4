// switch on action_run with labels sharing a block and a default, a switch inside an if
// (the table applied only on that path), .hit/.miss, and a switch on a bit<8> value with
// several labels per case.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; bit<8> r5; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action a1() { hdr.h.r1 = 1; }
    action a2() { hdr.h.r1 = 2; }
    action a3() { hdr.h.r1 = 3; }
    action b1() { hdr.h.r3 = 0xB1; }
    action b2() { hdr.h.r3 = 0xB2; }
    table t1 {
        key = { hdr.h.k : exact; }
        actions = { a1; a2; a3; NoAction; }
        default_action = NoAction();
    }
    table t2 {
        key = { hdr.h.k : exact; }
        actions = { b1; b2; }
        default_action = b2();
    }
    table t3 {
        key = { hdr.h.k : exact; }
        actions = { NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        switch (t1.apply().action_run) {
            a1:
            a2: { hdr.h.r2 = 0x12; }
            a3: { hdr.h.r2 = 0x30; }
            default: { hdr.h.r2 = 0xDD; }
        }
        if (hdr.h.k[0:0] == 1) {
            switch (t2.apply().action_run) {
                b1: { hdr.h.r3 = hdr.h.r3 ^ 0x0F; }
                default: { }
            }
        }
        switch (hdr.h.k) {
            1:
            3: { hdr.h.r4 = 0x13; }
            2: { hdr.h.r4 = 0x02; }
            default: { hdr.h.r4 = 0xFF; }
        }
        if (t3.apply().miss) {
            hdr.h.r5 = 0x4D;
        } else {
            hdr.h.r5 = 0x48;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
