// select with masks, ranges, a (control-plane empty) value_set and default.
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
    bit<8> path;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    value_set<bit<8>>(4) pvs;

    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            8w0x10 &&& 8w0xf0: path1;
            8w0x20 .. 8w0x2f: path2;
            pvs: path3;
            8w0x33: path3;
            default: accept;
        }
    }
    state path1 {
        meta.path = 1;
        transition accept;
    }
    state path2 {
        meta.path = 2;
        transition accept;
    }
    state path3 {
        meta.path = 3;
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        sm.egress_spec = 1;
        hdr.h.b = meta.path;
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
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
