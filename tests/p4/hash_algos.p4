// hash() with each BMv2 algorithm, base and max, and a 12-bit field packed MSB-first.
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<72> s;
    bit<12> q;
    bit<4>  pad;
}

header out_t {
    bit<16> h_crc16;
    bit<32> h_crc32;
    bit<16> h_csum16;
    bit<16> h_xor16;
    bit<16> h_identity;
    bit<16> h_mod;
    bit<16> h_q;
}

struct headers_t {
    in_t  i;
    out_t o;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.i);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        sm.egress_spec = 1;
        hdr.o.setValid();
        hash(hdr.o.h_crc16, HashAlgorithm.crc16, 16w0, { hdr.i.s }, 32w65536);
        hash(hdr.o.h_crc32, HashAlgorithm.crc32, 32w0, { hdr.i.s }, 64w4294967296);
        hash(hdr.o.h_csum16, HashAlgorithm.csum16, 16w0, { hdr.i.s }, 32w65536);
        hash(hdr.o.h_xor16, HashAlgorithm.xor16, 16w0, { hdr.i.s }, 32w65536);
        hash(hdr.o.h_identity, HashAlgorithm.identity, 16w0, { hdr.i.s }, 32w65536);
        hash(hdr.o.h_mod, HashAlgorithm.crc16, 16w10, { hdr.i.s }, 32w100);
        hash(hdr.o.h_q, HashAlgorithm.crc16, 16w0, { hdr.i.q }, 32w65536);
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
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
