// header_union: one member valid at a time; setValid on another member invalidates the first.
#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> t;
}

header short_t {
    bit<16> v;
}

header long_t {
    bit<32> v;
}

header_union u_t {
    short_t s16;
    long_t  l32;
}

struct headers_t {
    tag_t tag;
    u_t   u;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.t) {
            1: parse_short;
            2: parse_long;
            default: accept;
        }
    }
    state parse_short {
        pkt.extract(hdr.u.s16);
        transition accept;
    }
    state parse_long {
        pkt.extract(hdr.u.l32);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        sm.egress_spec = 1;
        if (hdr.u.s16.isValid()) {
            hdr.u.l32.setValid();
            hdr.u.l32.v = 32w0x10000 + (bit<32>)hdr.tag.t;
            hdr.tag.t = 2;
        } else if (hdr.u.l32.isValid()) {
            hdr.u.l32.v = hdr.u.l32.v + 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.tag);
        pkt.emit(hdr.u);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
