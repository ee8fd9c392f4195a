// Packet replication and re-injection: resubmit and recirculate with field lists on nested
// struct members, I2E clone together with multicast (egress prunes the copy back to the
// ingress port), clone of a dropped packet; instance_type as ingress and egress see it
// (unicast forces it back to 0 before egress), egress_rid, packet_length.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  mode;
    bit<8>  pass;
    bit<8>  itype;
    bit<8>  port_seen;
    bit<8>  kept;
    bit<8>  lost;
    bit<16> plen;
    bit<8>  rid;
}

struct headers {
    h_t h;
}

struct inner_t {
    @field_list(1, 2)
    bit<8> kept;
}

struct meta_t {
    inner_t in1;
    bit<8>  lost;
    @field_list(2)
    bit<8>  k2;
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
        hdr.h.pass = hdr.h.pass + 1;
        hdr.h.itype = (bit<8>)sm.instance_type;
        if (hdr.h.mode == 1) {
            if (sm.instance_type == 0) {
                meta.in1.kept = 0xAA;
                meta.lost = 0xBB;
                resubmit_preserving_field_list(1);
            }
            sm.egress_spec = 2;
        } else if (hdr.h.mode == 2) {
            sm.egress_spec = 3;
        } else if (hdr.h.mode == 3) {
            meta.in1.kept = 0x33;
            sm.mcast_grp = 1;
            clone_preserving_field_list(CloneType.I2E, 5, 1);
        } else if (hdr.h.mode == 4) {
            meta.in1.kept = 0x44;
            clone_preserving_field_list(CloneType.I2E, 5, 2);
            mark_to_drop(sm);
        }
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.mode == 2 && meta.k2 == 0) {
            meta.k2 = 0x5C;
            meta.lost = 1;
            hdr.h.pass = hdr.h.pass + 0x10;
            recirculate_preserving_field_list(2);
        } else {
            hdr.h.itype = hdr.h.itype | ((bit<8>)sm.instance_type << 4);
            hdr.h.port_seen = (bit<8>)sm.ingress_port;
            hdr.h.kept = meta.in1.kept | meta.k2;
            hdr.h.lost = meta.lost;
            hdr.h.plen = (bit<16>)sm.packet_length;
            hdr.h.rid = (bit<8>)sm.egress_rid;
            if (sm.instance_type == 5 && sm.egress_port == sm.ingress_port) {
                mark_to_drop(sm);
            }
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
