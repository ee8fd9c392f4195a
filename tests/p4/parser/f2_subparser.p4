// Sub-parsers two levels deep, `verify` with user errors (in the top parser and inside a
// sub-parser) read back in ingress, and a packet too short for the first header.
#include <core.p4>
#include <v1model.p4>

error { BadVersion, BadLen }

header a_t { bit<4> ver; bit<4> len; bit<8> x; }
header b_t { bit<8> y; }
header c_t { bit<8> z; }
struct headers { a_t a; b_t b; c_t c; }
struct meta_t { bit<8> depth; }

parser Deep(packet_in pkt, out c_t c, inout bit<8> depth) {
    state start { pkt.extract(c); depth = depth + 1; transition accept; }
}
parser Inner(packet_in pkt, out b_t b, out c_t c, in bit<8> x, inout bit<8> depth) {
    Deep() deep;
    state start {
        verify(x != 0, error.BadLen);
        pkt.extract(b);
        depth = depth + 1;
        transition select(b.y) { 0: accept; default: deeper; }
    }
    state deeper { deep.apply(pkt, c, depth); transition accept; }
}
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Inner() inner;
    state start {
        pkt.extract(hdr.a);
        verify(hdr.a.ver == 4, error.BadVersion);
        transition select(hdr.a.len) { 1: call_inner; default: accept; }
    }
    state call_inner { inner.apply(pkt, hdr.b, hdr.c, hdr.a.x, meta.depth); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.NoError) {
            hdr.a.x = 0xE0 + meta.depth;
        } else if (sm.parser_error == error.BadVersion) {
            hdr.a.x = 0xD1;
        } else if (sm.parser_error == error.BadLen) {
            hdr.a.x = 0xD2;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.a.x = 0xD3;
        } else {
            hdr.a.x = 0xDF;
        }
        if (hdr.c.isValid()) {
            hdr.c.z = hdr.c.z + 1;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.a); pkt.emit(hdr.b); pkt.emit(hdr.c); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
