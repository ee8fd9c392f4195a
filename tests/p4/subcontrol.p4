// Sub-control, function and action calls with copy-in/copy-out parameters.
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

control Inc(inout bit<8> x, out bit<8> old) {
    apply {
        old = x;
        x = x + 1;
    }
}

bit<8> twice(in bit<8> v) {
    return v + v;
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Inc() inc;

    action swap(inout bit<8> p, inout bit<8> q) {
        bit<8> tmp = p;
        p = q;
        q = tmp;
    }
    apply {
        sm.egress_spec = 1;
        inc.apply(hdr.h.a, hdr.h.b);
        swap(hdr.h.a, hdr.h.b);
        hdr.h.c = (bit<16>)twice(hdr.h.a);
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
