// Slices, concatenation, casts, saturating and signed arithmetic, shifts, width inference.
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<8> x;
    bit<8> y;
}

header out_t {
    bit<8>  r0;
    bit<8>  r1;
    bit<8>  r2;
    bit<8>  r3;
    bit<8>  r4;
    bit<8>  r5;
    bit<8>  r6;
    bit<8>  r7;
    bit<8>  r8;
    bit<8>  r9;
    bit<8>  r10;
    bit<8>  r11;
    bit<8>  r12;
    bit<8>  r13;
    bit<8>  r14;
    bit<16> w0;
    bit<16> w1;
    bit<16> w2;
    bit<16> w3;
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
        bit<8> x = hdr.i.x;
        bit<8> y = hdr.i.y;
        hdr.o.r0 = x |+| y;
        hdr.o.r1 = y |-| x;
        hdr.o.r2 = x + y;
        hdr.o.r3 = x[7:4] ++ y[3:0];
        hdr.o.r4 = x << 2;
        hdr.o.r5 = x >> y;
        hdr.o.r6 = (bit<8>)((int<8>)x >> 2);
        hdr.o.r7 = (bit<8>)((int<8>)x - 8s120);
        hdr.o.r8 = (bit<8>)((int<8>)x |-| 8s120);
        hdr.o.r9 = x * 8w3;
        hdr.o.r10 = ~x;
        hdr.o.r11 = x ^ y;
        hdr.o.r12 = ((int<8>)x < 0) ? 8w1 : 8w0;
        hdr.o.r13 = x[0:0] ++ x[7:1];
        hdr.o.r14 = (bit<8>)(16w0x1234 + (bit<16>)y);
        hdr.o.w0 = (bit<16>)x;
        hdr.o.w1 = (bit<16>)(int<16>)(int<8>)x;
        hdr.o.w2 = (bit<16>)x + 1;
        hdr.o.w3 = x ++ y;
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
