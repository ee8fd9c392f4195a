// Unsigned arithmetic corners: division and modulo by constants, concatenation and slices
// of it, bool <-> bit<1> casts, unary minus and complement on bit<8>, widening multiply,
// a constant shift as wide as the operand, casts that truncate and widen.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a; bit<8> b;
    bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; bit<8> r5; bit<8> r6;
    bit<16> r7; bit<8> r8; bit<8> r9; bit<8> r10; bit<32> r11;
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
        hdr.h.r1 = hdr.h.a / 3;
        hdr.h.r2 = hdr.h.a % 7;
        hdr.h.r3 = (hdr.h.a ++ hdr.h.b)[11:4];
        hdr.h.r4 = (bit<8>)(bit<1>)(hdr.h.a > hdr.h.b);
        hdr.h.r5 = ((bool)hdr.h.a[7:7]) ? 8w0x11 : 8w0x22;
        hdr.h.r6 = hdr.h.a[3:0] ++ hdr.h.b[7:4];
        hdr.h.r7 = (bit<16>)hdr.h.a * (bit<16>)hdr.h.b;
        hdr.h.r8 = -hdr.h.a;
        hdr.h.r9 = ~hdr.h.a ^ hdr.h.b;
        hdr.h.r10 = (bit<8>)((bit<4>)hdr.h.b + 4w15);
        hdr.h.r11 = (bit<32>)((bit<4>)hdr.h.a ++ 4w0 ++ hdr.h.b) << 12;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
