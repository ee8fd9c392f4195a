// Headers whose fields group into byte words in every way p4emu's struct layout handles
// (p4emu/compiler/header_layout.py), and one it must leave to the one-integer code.
#include <core.p4>
#include <v1model.p4>

struct pair_t {
    bit<8> p;
    bit<8> q;
}

header mixed_h {
    bit<4>   a;      // a and b: one byte, b signed
    int<4>   b;
    bit<48>  mac;    // one field over two codes (I, H)
    bool     flag;   // a bool in a byte
    bit<7>   pad;
    bit<3>   f;      // two fields in one H
    bit<13>  off;
    bit<128> addr;   // Q, Q
    bit<24>  tri;    // H, B
    int<16>  s16;    // a signed word of its own
    pair_t   pair;   // a struct as a header field
}

header odd_h {
    bit<12> x;       // x and y: 3 bytes in two codes, shared: the one-integer code
    bit<12> y;
}

struct headers_t {
    mixed_h mixed;
    odd_h   odd;
}

struct meta_t {}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.mixed);
        pkt.extract(hdr.odd);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply {} }

control Ingress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.mixed.s16 = hdr.mixed.s16 - 1;  // signed arithmetic on an extracted field
        hdr.mixed.b = hdr.mixed.b + 1;
    }
}

control Egress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }

control NoCompute(inout headers_t hdr, inout meta_t meta) { apply {} }

control Deparse(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.mixed);
        pkt.emit(hdr.odd);
    }
}

V1Switch(P(), NoVerify(), Ingress(), Egress(), NoCompute(), Deparse()) main;
