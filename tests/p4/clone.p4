// I2E and E2E clones with a preserved field list; the I2E copy carries the received bytes.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    @field_list(1)
    bit<8> tag;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        sm.egress_spec = 1;
        if (hdr.h.a == 1) {
            meta.tag = 0x5a;
            hdr.h.b = 0x11;
            clone_preserving_field_list(CloneType.I2E, 32w5, 1);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        if (sm.instance_type == 0 && hdr.h.a == 2) {
            hdr.h.b = 0x22;
            meta.tag = 0x77;
            clone_preserving_field_list(CloneType.E2E, 32w6, 1);
        } else if (sm.instance_type != 0) {
            hdr.h.c = (bit<16>)meta.tag;
        }
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
