// A stack of header unions filled with `next` from a loop that selects on a slice of a
// lookahead and on a metadata counter (tuple select, no default: accept), then read back
// with a for loop in ingress. Each `us.next.<member>` extract takes exactly one element.
#include <core.p4>
#include <v1model.p4>
header a_t { bit<4> kind; bit<4> x; }
header b_t { bit<4> kind; bit<12> y; }
header_union u_t { a_t a; b_t b; }
header r_t { bit<8> n; bit<8> sum; }
struct headers { r_t r; u_t[3] us; }
struct meta_t { bit<8> n; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.r); transition next; }
    state next {
        transition select(pkt.lookahead<bit<8>>()[7:4], meta.n) {
            (4w0, _): accept;
            (_, 8w3): accept;
            (4w0xA, _): pa;
            (4w0xB, _): pb;
        }
    }
    state pa { pkt.extract(hdr.us.next.a); meta.n = meta.n + 1; transition next; }
    state pb { pkt.extract(hdr.us.next.b); meta.n = meta.n + 1; transition next; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.r.n = meta.n;
        bit<8> s = 0;
        for (bit<8> i = 0; i < 3; i = i + 1) {
            if (hdr.us[i].a.isValid()) { s = s + (bit<8>)hdr.us[i].a.x; }
            if (hdr.us[i].b.isValid()) { s = s + (bit<8>)hdr.us[i].b.y; }
        }
        hdr.r.sum = s;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
