// exit from an action called in a nested sub-control, exit in a sub-control's apply,
// return in a sub-control and in ingress, exit from a table action; egress still runs.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; bit<8> r5; bit<8> r6; bit<8> r7;
    bit<8> r8; bit<8> r9;
}
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control Sub2(inout headers hdr) {
    action ex() { hdr.h.r2 = 0x22; exit; }
    apply {
        hdr.h.r1 = 0x11;
        if (hdr.h.k == 1) {
            ex();
            hdr.h.r2 = 0x23;
        }
        if (hdr.h.k == 2) {
            return;
        }
        hdr.h.r3 = 0x33;
    }
}
control Sub1(inout headers hdr) {
    Sub2() s2;
    apply {
        s2.apply(hdr);
        hdr.h.r4 = 0x44;
        if (hdr.h.k == 3) {
            exit;
        }
        hdr.h.r5 = 0x55;
    }
}
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Sub1() s1;
    action ex_t() { hdr.h.r9 = 0x99; exit; }
    table t_exit {
        key = { hdr.h.k : exact; }
        actions = { ex_t; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (t_exit.apply().hit) {
            hdr.h.r9 = 0xAA;
        }
        s1.apply(hdr);
        hdr.h.r6 = 0x66;
        if (hdr.h.k == 4) {
            return;
        }
        hdr.h.r7 = 0x77;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.r8 = 0x88; }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
