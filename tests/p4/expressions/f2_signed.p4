// Signed arithmetic as p4c + BMv2 compute it: casts bit->int, sign extension, arithmetic
// right shift (also by a variable amount past the width), signed saturating |+| and |-|,
// slices of a signed value, wrapping signed multiply, unsigned shifts past the width.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a; bit<8> b;
    bit<16> r1; bit<16> r2;
    bit<8> r3; bit<8> r4; bit<8> r5; bit<8> r6; bit<8> r7; bit<8> r8; bit<8> r9;
}
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        int<8> sa = (int<8>)hdr.h.a;
        int<8> sb = (int<8>)hdr.h.b;
        int<16> se = (int<16>)sa;
        hdr.h.r1 = (bit<16>)se;
        hdr.h.r2 = (bit<16>)(se >> 3);
        hdr.h.r3 = (bit<8>)(sa |+| sb);
        hdr.h.r4 = (bit<8>)(sa |-| sb);
        hdr.h.r5 = se[11:4];
        hdr.h.r6 = hdr.h.a >> hdr.h.b;
        hdr.h.r7 = (bit<8>)(sa >> hdr.h.b);
        hdr.h.r8 = (bit<8>)(sa * sb);
        hdr.h.r9 = hdr.h.a << hdr.h.b;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
