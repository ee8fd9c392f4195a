// lookahead as p4c lowers it for BMv2: a bare lookahead statement is dropped (no error even
// past the end), a lookahead assigned to a variable raises PacketTooShort when short.
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> k; }
header r_t { bit<8> err; bit<8> v; }
struct headers { r_t r; a_t a; }
struct meta_t { bit<16> la; }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.a);
        transition select(hdr.a.k) { 1: bare; default: into_var; }
    }
    state bare {
        pkt.lookahead<bit<32>>();
        transition accept;
    }
    state into_var {
        m.la = pkt.lookahead<bit<16>>();
        transition accept;
    }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.r.setValid();
        hdr.r.err = sm.parser_error == error.PacketTooShort ? 8w1 : (sm.parser_error == error.NoError ? 8w0 : 8w0xEE);
        hdr.r.v = m.la[7:0];
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.r); pkt.emit(hdr.a); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
