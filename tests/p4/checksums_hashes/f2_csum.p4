// verify_checksum / update_checksum with conditions: a wrong checksum sets checksum_error
// (read in ingress) and the packet goes on; a false condition skips verification or
// update; an odd-length field list is padded with a zero byte; a checksum over a header
// that was not parsed is skipped.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> flag; bit<8> a; bit<16> b; bit<16> csum; bit<8> res; }
header h2_t { bit<16> x; bit<16> c2; }
struct headers { h_t h; h2_t h2; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.flag[7:7]) { 1: parse_h2; default: accept; }
    }
    state parse_h2 { pkt.extract(hdr.h2); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.h.flag[0:0] == 1, { hdr.h.a, hdr.h.b }, hdr.h.csum, HashAlgorithm.csum16);
        verify_checksum(true, { hdr.h2.x }, hdr.h2.c2, HashAlgorithm.csum16);
    }
}
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.res = sm.checksum_error == 1 ? 8w0xCE : 8w0x00;
        hdr.h.b = hdr.h.b + 1;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.h.flag[1:1] == 1, { hdr.h.a, hdr.h.b }, hdr.h.csum, HashAlgorithm.csum16);
        update_checksum(hdr.h2.isValid(), { hdr.h2.x }, hdr.h2.c2, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.h2); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
