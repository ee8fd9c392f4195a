// Every v1model hash algorithm over odd-width fields (bit-packed, zero padded to a byte),
// with bases, maxima (0 means 1) and narrow/wide destinations.
#include <core.p4>
#include <v1model.p4>

header in_t {
    bit<12> a;
    bit<4>  b;
    bit<8>  c;
    bit<32> d;
    bit<3>  e;
    bit<5>  f;
}

header out_t {
    bit<32> crc32;
    bit<32> crc32c;
    bit<16> crc16;
    bit<16> crc16c;
    bit<16> csum;
    bit<16> xor;
    bit<64> ident;
    bit<8>  narrow;
    bit<16> based;
    bit<16> zero_max;
    bit<32> odd;
    bit<16> ident_long;
}

struct headers {
    in_t  i;
    out_t o;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.i);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hash(hdr.o.crc32, HashAlgorithm.crc32, 32w0, { hdr.i.a, hdr.i.b, hdr.i.c }, 64w0x100000000);
        hash(hdr.o.crc32c, HashAlgorithm.crc32_custom, 32w0, { hdr.i.d }, 64w0x100000000);
        hash(hdr.o.crc16, HashAlgorithm.crc16, 16w0, { hdr.i.a, hdr.i.e }, 32w65536);
        hash(hdr.o.crc16c, HashAlgorithm.crc16_custom, 16w0, { hdr.i.c, hdr.i.d }, 32w65536);
        hash(hdr.o.csum, HashAlgorithm.csum16, 16w0, { hdr.i.a, hdr.i.b, hdr.i.c, hdr.i.d, hdr.i.e }, 32w65536);
        hash(hdr.o.xor, HashAlgorithm.xor16, 16w0, { hdr.i.c, hdr.i.d, hdr.i.e, hdr.i.f }, 32w65536);
        hash(hdr.o.ident, HashAlgorithm.identity, 64w0, { hdr.i.a, hdr.i.e }, 65w0x10000000000000000);
        hash(hdr.o.narrow, HashAlgorithm.crc32, 8w3, { hdr.i.d }, 16w1000);
        hash(hdr.o.based, HashAlgorithm.crc16, 16w0xfff0, { hdr.i.c }, 16w100);
        hash(hdr.o.zero_max, HashAlgorithm.crc16, 16w7, { hdr.i.c }, 16w0);
        hash(hdr.o.odd, HashAlgorithm.csum16, 32w1, { hdr.i.f, hdr.i.c }, 32w1000);
        hash(hdr.o.ident_long, HashAlgorithm.identity, 16w0, { hdr.i.d, hdr.i.d, hdr.i.c }, 32w65536);
        sm.egress_spec = 2;
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
