// Functions with early return, a void function with inout/out parameters, an action
// with inout parameters called on the same field twice (copy-in/copy-out: no change) and
// on two fields (a swap), table keys that are a slice and a masked field (named with
// @name, the only way STF can write them), and packet_length in egress after setValid.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> r1; bit<8> r2; bit<8> r3; bit<16> len; }
header x_t { bit<16> x; }
struct headers { h_t h; x_t x; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
bit<8> twice(in bit<8> v) { if (v > 100) { return 0xFF; } return v + v; }
void incr(inout bit<8> v, out bit<8> old) { old = v; v = v + 1; }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action s1(bit<8> v) { hdr.h.r1 = v; }
    action swap(inout bit<8> x, inout bit<8> y) { bit<8> t = x; x = y; y = t; }
    table t_slice {
        key = { hdr.h.a[3:0] : exact @name("lo"); hdr.h.b & 0xF0 : exact @name("bm"); }
        actions = { s1; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        t_slice.apply();
        hdr.h.r2 = twice(hdr.h.a);
        incr(hdr.h.b, hdr.h.r3);
        if (hdr.h.a == 7) { swap(hdr.h.a, hdr.h.a); }
        if (hdr.h.a == 8) { swap(hdr.h.a, hdr.h.b); }
        hdr.x.setValid();
        hdr.x.x = 0x1234;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.h.len = (bit<16>)sm.packet_length; }
}
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.x); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
