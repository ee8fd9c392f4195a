// recirculate: the deparsed packet re-enters ingress (instance_type 4 there) with only the field list kept.
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
    bit<8> pass;
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
        hdr.h.a = hdr.h.a + 1;
        if (sm.instance_type == 4) {
            hdr.h.c = 0x0400;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        // a unicast packet reaches egress with instance_type 0 even after recirculation,
        // so the preserved field tells the passes apart
        if (meta.pass == 0) {
            hdr.h.b = 0x11;
            meta.pass = 1;
            recirculate_preserving_field_list(1);
        } else {
            hdr.h.c = hdr.h.c | (bit<16>)meta.pass;
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
