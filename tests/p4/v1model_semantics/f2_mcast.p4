// Multicast replication with egress_rid, mark_to_drop in egress (drops one replica), an
// unknown group (no copies), egress_spec never written (port 0), egress_port read in
// ingress (0), mark_to_drop followed by a new egress_spec (mcast_grp stays cleared), and
// truncate (the smallest length asked for wins).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> op; bit<16> rid; bit<8> eport; bit<8> ing_eport; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.ing_eport = (bit<8>)sm.egress_port;
        if (hdr.h.op == 1 || hdr.h.op == 6) {
            sm.mcast_grp = 1;
        } else if (hdr.h.op == 2) {
            sm.mcast_grp = 2;
        } else if (hdr.h.op == 5) {
            sm.egress_spec = 1;
            truncate(10);
            truncate(3);
            truncate(4);
        } else if (hdr.h.op == 7) {
            sm.mcast_grp = 1;
            mark_to_drop(sm);
            sm.egress_spec = 2;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.rid = sm.egress_rid;
        hdr.h.eport = (bit<8>)sm.egress_port;
        if (hdr.h.op == 6 && sm.egress_rid == 20) {
            mark_to_drop(sm);
        }
    }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
