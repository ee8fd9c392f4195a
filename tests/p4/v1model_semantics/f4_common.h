// Shared by the fidelity4 programs: a 6-byte data header d, an optional 1-byte header e
// (present when d.tag == 0xEE), and the plumbing controls. Each program declares
// `struct meta_t` before including this file, then its own ingress and egress.
#ifndef F4_COMMON_H
#define F4_COMMON_H
#include <core.p4>
#include <v1model.p4>

header d_t { bit<8> tag; bit<8> x1; bit<8> x2; bit<8> x3; bit<16> x4; }
header e_t { bit<8> v; }
struct headers { d_t d; e_t e; }

parser P(packet_in pk, out headers h, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(h.d);
        transition select(h.d.tag) { 0xEE: get_e; default: accept; }
    }
    state get_e { pk.extract(h.e); transition accept; }
}
control VC(inout headers h, inout meta_t m) { apply { } }
control CC(inout headers h, inout meta_t m) { apply { } }
control D(packet_out pk, in headers h) { apply { pk.emit(h.d); pk.emit(h.e); } }
#endif
