// Headers as values: a parser-local header extracted then copied into a nested struct, an
// action with an `out` header parameter (starts invalid, setValid zeroes it), a function
// returning a header built from a list, and emit of a whole struct of structs.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct inner_t { h_t x; h_t y; }
struct headers { inner_t in1; h_t z; }
struct meta_t { }
h_t mk(in bit<8> v) { h_t r = { v, v + 1 }; return r; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    h_t tmp;
    state start {
        pkt.extract(tmp);
        transition select(tmp.a) { 1: copy; default: direct; }
    }
    state copy { hdr.in1.x = tmp; pkt.extract(hdr.in1.y); transition accept; }
    state direct { pkt.extract(hdr.in1.y); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fill(out h_t o, bit<8> v) { o.setValid(); o.a = v; o.b = 0xEE; }
    apply {
        sm.egress_spec = 1;
        if (hdr.in1.y.b == 0x77) {
            fill(hdr.z, 0x55);
        } else if (hdr.in1.y.b == 0x78) {
            hdr.z = mk(0x40);
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
