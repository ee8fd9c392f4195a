// update_checksum/verify_checksum with other algorithms and odd lengths: csum16 over an
// odd number of bytes (zero padded on the right), crc32 into a 32-bit field, crc16 and
// xor16 into 16-bit fields, a 12-bit field list padded to a byte, a condition that is false.
#include <core.p4>
#include <v1model.p4>

header d_t {
    bit<8>  a;
    bit<16> b;
    bit<12> c;
    bit<4>  f;
    bit<16> cs_odd;
    bit<32> cs_crc32;
    bit<16> cs_crc16;
    bit<16> cs_xor;
    bit<16> cs_never;
}

struct headers {
    d_t d;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.d);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) {
    apply {
        verify_checksum(true, { hdr.d.a, hdr.d.b }, hdr.d.cs_odd, HashAlgorithm.csum16);
    }
}

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>)sm.checksum_error + 1;
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control CC(inout headers hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.d.isValid(), { hdr.d.a, hdr.d.b }, hdr.d.cs_odd, HashAlgorithm.csum16);
        update_checksum(true, { hdr.d.a, hdr.d.c }, hdr.d.cs_crc32, HashAlgorithm.crc32);
        update_checksum(true, { hdr.d.c }, hdr.d.cs_crc16, HashAlgorithm.crc16);
        update_checksum(true, { hdr.d.a, hdr.d.b, hdr.d.c, hdr.d.f }, hdr.d.cs_xor, HashAlgorithm.xor16);
        update_checksum(hdr.d.a == 0xFF, { hdr.d.b }, hdr.d.cs_never, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.d);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
