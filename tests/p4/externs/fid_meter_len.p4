// A byte meter executed in egress after the packet grew: BMv2 meters (and counters) charge
// the ingress length, not the egress packet_length. Two-rate three-color marking with
// tiny rates, so back-to-back packets only drain the buckets.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  color;
    bit<8>  pad;
    bit<16> elen;
}

header tag_t {
    bit<32> t;
}

struct headers {
    h_t   h;
    tag_t tag;
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
    apply {
        sm.egress_spec = 1;
        hdr.tag.setValid();
        hdr.tag.t = 0xA5A5A5A5;
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    meter(32w4, MeterType.bytes) m;
    apply {
        bit<8> c;
        m.execute_meter(32w2, c);
        hdr.h.color = c;
        hdr.h.elen = (bit<16>)sm.packet_length;
    }
}

control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.tag);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
