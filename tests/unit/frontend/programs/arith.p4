/* Width inference, constant folding and wrap-around arithmetic as p4c/BMv2 do it. */
#include <core.p4>
#include <v1model.p4>
header in_t { bit<8> a; bit<8> b; int<8> s; bit<16> w; }
header out_t {
    bit<8> fold; bit<8> cast_fold; bit<8> add; bit<8> sub; bit<8> mul; bit<8> satadd;
    bit<8> satsub; bit<8> shl; bit<8> shr; bit<8> neg; bit<8> inv; int<8> sshr;
    int<8> ssat; bit<16> concat; bit<8> slice; bit<8> div; bit<8> mod; bit<8> cmp;
    bit<8> widen; int<8> snarrow;
}
struct metadata { }
struct headers { in_t i; out_t o; }
parser p(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.i); transition accept; }
}
control vc(inout headers hdr, inout metadata meta) { apply {} }
control ig(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        hdr.o.fold = 512 >> 2;
        hdr.o.cast_fold = (bit<8>)(300 / 2);
        hdr.o.add = hdr.i.a + 200;
        hdr.o.sub = hdr.i.a - hdr.i.b;
        hdr.o.mul = hdr.i.a * 3;
        hdr.o.satadd = hdr.i.a |+| hdr.i.b;
        hdr.o.satsub = hdr.i.b |-| hdr.i.a;
        hdr.o.shl = hdr.i.a << 4;
        hdr.o.shr = hdr.i.a >> hdr.i.b;
        hdr.o.neg = -hdr.i.a;
        hdr.o.inv = ~hdr.i.a;
        hdr.o.sshr = hdr.i.s >> 2;
        hdr.o.ssat = hdr.i.s |-| 100;
        hdr.o.concat = hdr.i.a ++ hdr.i.b;
        hdr.o.slice = hdr.i.w[11:4];
        hdr.o.div = hdr.i.a / 7;
        hdr.o.mod = hdr.i.a % 7;
        hdr.o.cmp = (hdr.i.s < 0 && hdr.i.a > hdr.i.b) ? 8w1 : 8w2;
        hdr.o.widen = (bit<8>)((bit<16>)hdr.i.a + 16w300);
        hdr.o.snarrow = (int<8>)hdr.i.w;
        sm.egress_spec = 1;
    }
}
control eg(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply {} }
control ck(inout headers hdr, inout metadata meta) { apply {} }
control dp(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(p(), vc(), ig(), eg(), ck(), dp()) main;
