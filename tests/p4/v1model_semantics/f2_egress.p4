// What egress can and cannot change: egress_spec written in egress only matters when it is
// 511 (drop) at the end, egress_port writes do not move the packet, mark_to_drop followed by
// a new egress_spec forwards; ingress metadata writes (ingress_port) reach egress; the last
// clone call wins; clone + resubmit in one pass both happen; multicast + clone;
// setInvalid/setValid resets fields to 0.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> op; bit<8> ip; bit<8> ep; bit<8> it; bit<8> a; }
struct headers { h_t h; }
struct meta_t { @field_list(1) bit<8> pass; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 4) {
            sm.ingress_port = 77;
        } else if (hdr.h.op == 5) {
            clone(CloneType.I2E, 5);
            clone(CloneType.I2E, 6);
        } else if (hdr.h.op == 6) {
            if (sm.instance_type == 0) {
                clone(CloneType.I2E, 5);
                resubmit_preserving_field_list(1);
            }
            sm.egress_spec = 2;
        } else if (hdr.h.op == 7) {
            sm.mcast_grp = 1;
            clone(CloneType.I2E, 6);
        } else if (hdr.h.op == 8) {
            hdr.h.setInvalid();
            hdr.h.a = 0x55;
            hdr.h.setValid();
            hdr.h.op = 8;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.ip = (bit<8>)sm.ingress_port;
        hdr.h.ep = (bit<8>)sm.egress_port;
        hdr.h.it = (bit<8>)sm.instance_type;
        if (hdr.h.op == 1) {
            sm.egress_spec = 3;
        } else if (hdr.h.op == 2) {
            sm.egress_port = 3;
        } else if (hdr.h.op == 3) {
            mark_to_drop(sm);
            sm.egress_spec = 1;
        } else if (hdr.h.op == 9) {
            sm.egress_spec = 511;
        }
    }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
