// packet_length in egress after setInvalid shrinks the length register, resubmit wins over
// mark_to_drop in the same pass, multicast wins over egress_spec (two replicas on one port
// leave in node order), and a recirculated packet is as long as its deparsed bytes.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> it; bit<16> len; bit<16> rid; bit<8> ep; }
header x_t { bit<16> x; }
struct headers { h_t h; x_t x; }
struct meta_t { @field_list(1) bit<8> pass; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition select(hdr.h.op[7:4]) { 1: px; default: accept; } }
    state px { pkt.extract(hdr.x); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.it = (bit<8>)sm.instance_type;
        if (hdr.h.op == 0x11) {
            hdr.x.setInvalid();
        } else if (hdr.h.op == 0x02) {
            if (sm.instance_type == 0) {
                mark_to_drop(sm);
                resubmit_preserving_field_list(1);
            }
        } else if (hdr.h.op == 0x03) {
            sm.mcast_grp = 7;
            sm.egress_spec = 2;
        } else if (hdr.h.op == 0x14) {
            if (sm.instance_type == 0) {
                hdr.x.setInvalid();
                meta.pass = 1;
            }
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.len = (bit<16>)sm.packet_length;
        hdr.h.rid = sm.egress_rid;
        hdr.h.ep = (bit<8>)sm.egress_port;
        if (hdr.h.op == 0x14 && meta.pass == 1) {
            meta.pass = 2;
            recirculate_preserving_field_list(1);
        }
    }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.x); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
