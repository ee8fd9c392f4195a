// Wide and mixed-width values: bit<128> add with carry across 64 bits, shifts of 128-bit
// values, 64x64 multiply wrapping, unsigned |+| / |-| clamping, signed comparison, a
// list expression assigned to a header (which makes it valid), infinite-precision constant
// folding, and signed concatenation.
#include <core.p4>
#include <v1model.p4>

const bit<8> FOLDED = (1 << 9) >> 2;
const int<8> NEG = -3;

header w_t { bit<128> a; bit<128> b; bit<64> c; bit<64> d; }
header r_t {
    bit<128> sum; bit<128> shl; bit<128> shr; bit<64> mul;
    bit<8> sat_add; bit<8> sat_sub; bit<8> lt; bit<8> folded; bit<16> scat;
}
header n_t { bit<8> x; bit<8> y; }
struct headers { w_t w; r_t r; n_t n; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.w); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.r.setValid();
        hdr.r.sum = hdr.w.a + hdr.w.b;
        hdr.r.shl = hdr.w.a << 100;
        hdr.r.shr = hdr.w.b >> (bit<8>)hdr.w.c;
        hdr.r.mul = hdr.w.c * hdr.w.d;
        hdr.r.sat_add = hdr.w.c[7:0] |+| hdr.w.d[7:0];
        hdr.r.sat_sub = hdr.w.c[7:0] |-| hdr.w.d[7:0];
        int<8> sc = (int<8>)hdr.w.c[7:0];
        hdr.r.lt = (sc < NEG) ? 8w1 : 8w0;
        hdr.r.folded = FOLDED;
        int<16> cat = sc ++ hdr.w.d[7:0];
        hdr.r.scat = (bit<16>)(cat >> 4);
        hdr.n = { hdr.w.c[15:8], 8w0x7E };
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.w); pkt.emit(hdr.r); pkt.emit(hdr.n); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
