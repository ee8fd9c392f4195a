// p4c: accepts. P4 1.2 allows struct-typed header fields whose fields are bit<N>, int<N>,
// bool, serializable enums or such structs; they are laid out in place, MSB first
// (p4c testdata bvec-hdr-bmv2.p4, issue383-bmv2.p4).
#include <core.p4>
#include <v1model.p4>
enum bit<4> kind_t { A = 1, B = 2 }
struct inner_t { bool flag; int<3> s; kind_t k; }
struct pair_t { bit<4> hi; inner_t in_; }
header h_t { bit<8> a; pair_t p; bit<4> pad; bit<8> b; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.p.in_.flag && hdr.h.p.in_.k == kind_t.A) {
            hdr.h.p.in_.s = hdr.h.p.in_.s - 1;   // int<3>: -4 - 1 wraps to 3
            hdr.h.p.hi = hdr.h.p.hi + 1;
            hdr.h.p.in_.k = kind_t.B;
        }
        hdr.h.b = (bit<8>)hdr.h.p.hi;
    }
}
control NoCk(inout headers hdr, inout meta_t m) { apply { } }
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), NoCk(), I(), E(), NoCk(), D()) main;
