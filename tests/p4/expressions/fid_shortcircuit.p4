// Table applies inside short-circuit conditions and the conditional operator: the second
// table runs only when the first operand does not decide the result.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k1;
    bit<8> k2;
    bit<8> r1;
    bit<8> r2;
    bit<8> verdict;
}

struct headers {
    h_t h;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action mark1() { hdr.h.r1 = hdr.h.r1 + 1; }
    action mark2() { hdr.h.r2 = hdr.h.r2 + 1; }
    table t1 {
        key = { hdr.h.k1 : exact; }
        actions = { mark1; NoAction; }
        default_action = NoAction();
    }
    table t2 {
        key = { hdr.h.k2 : exact; }
        actions = { mark2; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.verdict == 0) {
            if (t1.apply().hit && t2.apply().hit) {
                hdr.h.verdict = 0x11;
            } else {
                hdr.h.verdict = 0x10;
            }
        } else {
            hdr.h.verdict = hdr.h.verdict == 1 || hdr.h.r1 == 0 ? 8w0x21 : 8w0x20;
        }
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
