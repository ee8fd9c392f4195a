// p4c: accepts. lookahead<T> of a struct holding a header, a header stack and bits
// (p4c testdata issue1768-bmv2.p4, issue2465-bmv2.p4): the fields are laid out one
// after another, MSB first; the headers in the value are valid; nothing is consumed.
#include <core.p4>
#include <v1model.p4>
header b_t { bit<8> v; }
struct la_t { b_t first; b_t[2] rest; bit<4> hi; bool f; bit<3> lo; }
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    la_t x;
    state start {
        x = pk.lookahead<la_t>();
        pk.extract(hdr.h);
        hdr.h.a = x.rest[1].v;
        hdr.h.b = x.first.v;
        hdr.h.c = (bit<8>)x.hi;
        hdr.h.d = (bit<8>)x.lo;
        transition select(x.f, x.rest[0].isValid()) {
            (true, true): flagged;
            default: accept;
        }
    }
    state flagged {
        hdr.h.d = hdr.h.d | 0x80;
        transition accept;
    }
}
control NoCk(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), NoCk(), I(), E(), NoCk(), D()) main;
