// I2E and E2E clones, resubmit and recirculate with @field_list metadata, read back through
// instance_type in ingress and egress (unicast packets always show 0 in egress): field-list values are taken at the end of the pipeline that
// asked, every other metadata field starts at 0, a resubmit loop counts its passes, a clone
// survives mark_to_drop, and a clone to an unconfigured session makes nothing.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> op; bit<8> iit; bit<8> eit; bit<8> m; bit<8> lost; bit<8> eport; }
struct headers { h_t h; }
struct meta_t {
    @field_list(1) bit<8> keep;
    bit<8> lost;
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.iit = (bit<8>)sm.instance_type;
        if (sm.instance_type == 0 && hdr.h.op != 6) {
            meta.keep = 0x4B;
            meta.lost = 0x4C;
        }
        if (hdr.h.op == 1) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
            meta.keep = 0x4D;
        } else if (hdr.h.op == 2) {
            if (sm.instance_type == 0) {
                resubmit_preserving_field_list(1);
            } else {
                sm.egress_spec = 2;
            }
        } else if (hdr.h.op == 3) {
            if (sm.instance_type == 4) {
                sm.egress_spec = 3;
            }
        } else if (hdr.h.op == 5) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
            mark_to_drop(sm);
        } else if (hdr.h.op == 6) {
            meta.keep = meta.keep + 1;
            if (meta.keep < 3) {
                resubmit_preserving_field_list(1);
            }
            sm.egress_spec = 2;
        } else if (hdr.h.op == 7) {
            clone_preserving_field_list(CloneType.I2E, 9, 1);
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        // unicast packets reach egress with instance_type 0 whatever ingress saw, so the
        // recirculation guard reads what ingress recorded
        if (hdr.h.op == 3 && hdr.h.iit == 0) {
            recirculate_preserving_field_list(1);
        } else if (hdr.h.op == 4 && sm.instance_type == 0) {
            clone_preserving_field_list(CloneType.E2E, 6, 1);
        }
        hdr.h.eit = (bit<8>)sm.instance_type;
        hdr.h.m = meta.keep;
        hdr.h.lost = meta.lost;
        hdr.h.eport = (bit<8>)sm.egress_port;
    }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
