// Compound assignments (+=, -=, |=, <<=, >>=, *=, &=, ^=, |+|=, |-|=) and for loops with
// break/continue and several init declarations (P4 1.2.5).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.a += 1; hdr.h.b -= 1; hdr.h.c |= 0xf0; hdr.h.d <<= 1; hdr.h.d >>= 0; hdr.h.a *= 2;
        hdr.h.a &= 0xff; hdr.h.a ^= 0; hdr.h.b |+|= 0; hdr.h.b |-|= 0;
        for (bit<8> i = 0; i < 3; i = i + 1) { hdr.h.c = hdr.h.c + 1; if (i == 1) { continue; } }
        for (bit<8> i = 0, bit<8> j = 1; i < 3; i = i + 1, j = j + 1) { if (i == 2) { break; } hdr.h.d = hdr.h.d + j; }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
