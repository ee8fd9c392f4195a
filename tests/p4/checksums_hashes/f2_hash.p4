// hash() with every algorithm BMv2 implements (crc16, crc32, csum16, xor16, identity and the
// unconfigured crc16_custom/crc32_custom, which default to crc16/crc32), base/max
// variants ((H % max) + base, max 0 counts as 1), results narrowed to the destination, and
// a 12-bit field packed MSB-first and padded to a byte before hashing.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<12> c; bit<4> pad; }
header o_t {
    bit<16> crc16; bit<32> crc32; bit<16> csum; bit<16> xor; bit<16> ident;
    bit<16> c16c; bit<32> c32c; bit<16> mod; bit<16> max0; bit<8> narrow; bit<16> c12;
}
struct headers { h_t h; o_t o; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.o); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hash(hdr.o.crc16, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.o.crc32, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h.b }, 64w4294967296);
        hash(hdr.o.csum, HashAlgorithm.csum16, 16w0, { hdr.h.a, hdr.h.b, hdr.h.a }, 32w65536);
        hash(hdr.o.xor, HashAlgorithm.xor16, 16w0, { hdr.h.a, hdr.h.b, hdr.h.b }, 32w65536);
        hash(hdr.o.ident, HashAlgorithm.identity, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.o.c16c, HashAlgorithm.crc16_custom, 16w0, { hdr.h.a, hdr.h.b }, 32w65536);
        hash(hdr.o.c32c, HashAlgorithm.crc32_custom, 32w0, { hdr.h.a, hdr.h.b }, 64w4294967296);
        hash(hdr.o.mod, HashAlgorithm.crc16, 16w100, { hdr.h.a, hdr.h.b }, 32w7);
        hash(hdr.o.max0, HashAlgorithm.crc32, 16w5, { hdr.h.a }, 32w0);
        hash(hdr.o.narrow, HashAlgorithm.crc32, 8w0, { hdr.h.b }, 32w65536);
        hash(hdr.o.c12, HashAlgorithm.crc16, 16w0, { hdr.h.c }, 32w65536);
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.o); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
