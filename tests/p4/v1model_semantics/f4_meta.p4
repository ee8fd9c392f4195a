// parser_error / checksum_error as ingress sees them, and the global timestamps.
// x1 bit 0: ingress_global_timestamp != 0; bit 1: egress timestamp >= ingress one.
// x2: 0 NoError, 1 PacketTooShort, 7 Custom1, 8 Custom2 (user errors number from 7).
// x3: checksum_error.
#include <core.p4>
#include <v1model.p4>

error { Custom1, Custom2 }
header d_t { bit<8> tag; bit<8> x1; bit<8> x2; bit<8> x3; bit<16> x4; }
header e_t { bit<8> v; }
struct headers { d_t d; e_t e; }
struct meta_t { bit<48> ts; }

parser P(packet_in pk, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(h.d);
        verify(h.d.tag != 0xC1, error.Custom1);
        transition select(h.d.tag) { 0xEE: get_e; 0xC2: bad; default: accept; }
    }
    state get_e { pk.extract(h.e); transition accept; }
    state bad { verify(false, error.Custom2); transition accept; }
}
control VC(inout headers h, inout meta_t m) {
    apply {
        verify_checksum(h.d.x3 == 1, { h.d.tag, h.d.x1 }, h.d.x4, HashAlgorithm.csum16);
    }
}
control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.ts = sm.ingress_global_timestamp;
        h.d.x1 = sm.ingress_global_timestamp != 0 ? 8w1 : 8w0;
        if (sm.parser_error == error.NoError) { h.d.x2 = 0; }
        else if (sm.parser_error == error.PacketTooShort) { h.d.x2 = 1; }
        else if (sm.parser_error == error.Custom1) { h.d.x2 = 7; }
        else if (sm.parser_error == error.Custom2) { h.d.x2 = 8; }
        else { h.d.x2 = 0xFF; }
        h.d.x3 = (bit<8>) sm.checksum_error;
        sm.egress_spec = 1;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_global_timestamp >= m.ts) { h.d.x1 = h.d.x1 | 2; }
    }
}
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pk, in headers h) { apply { pk.emit(h.d); pk.emit(h.e); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
