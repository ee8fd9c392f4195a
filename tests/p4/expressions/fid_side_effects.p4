// Evaluation order with side effects: a function with an inout parameter used inside
// expressions. Operands and arguments are evaluated left to right (in-arguments copied as
// they are evaluated); &&, || and ?: only evaluate what they need (p4c SideEffectOrdering).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> a;
    bit<8> x;
    bit<8> y;
    bit<8> c;
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

bit<8> bump(inout bit<8> v) {
    v = v + 1;
    return v;
}

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action record(in bit<8> first, in bit<8> second) {
        hdr.h.x = first;
        hdr.h.y = second;
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 0) {
            // left operand first: 2 + 3 * 2 for a = 1
            hdr.h.c = bump(hdr.h.a) + bump(hdr.h.a) * 2;
        } else if (hdr.h.op == 1) {
            record(hdr.h.a, bump(hdr.h.a));
        } else if (hdr.h.op == 2) {
            hdr.h.c = (hdr.h.a == 4 || bump(hdr.h.a) == 0) ? 8w1 : 8w2;
        } else if (hdr.h.op == 3) {
            hdr.h.c = hdr.h.a == 4 ? 8w7 : bump(hdr.h.a);
        } else if (hdr.h.op == 5) {
            // the left operand is read before the call on the right runs
            hdr.h.c = hdr.h.a + bump(hdr.h.a);
        } else if (hdr.h.op == 4) {
            if (hdr.h.a != 4 && bump(hdr.h.a) == 6) {
                hdr.h.c = 1;
            }
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
