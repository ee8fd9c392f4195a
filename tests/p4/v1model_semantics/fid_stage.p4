// Clone / recirculate / resubmit requests made in the other pipeline stage. In BMv2 the
// primitives only set per-packet registers (both clone primitives set the same one); the
// end of ingress acts on clone and resubmit, the end of egress on clone and recirculate.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> pass;
    bit<8> itype;
    bit<8> mark;
}

struct headers {
    h_t h;
}

struct meta_t {
    @field_list(1)
    bit<8> keep;
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.pass = hdr.h.pass + 1;
        hdr.h.itype = hdr.h.itype | (bit<8>)sm.instance_type;
        if (sm.instance_type == 0) {
            if (hdr.h.op == 1) {
                clone(CloneType.E2E, 32w3);
            } else if (hdr.h.op == 3) {
                meta.keep = 1;
                recirculate_preserving_field_list(1);
            }
        }
        hdr.h.mark = 0x11;
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.itype = hdr.h.itype | ((bit<8>)sm.instance_type << 4);
        if (sm.instance_type == 0) {
            if (hdr.h.op == 2) {
                clone(CloneType.I2E, 32w3);
            } else if (hdr.h.op == 4) {
                resubmit_preserving_field_list(1);
            }
            hdr.h.mark = hdr.h.mark + 1;
        }
    }
}

control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
