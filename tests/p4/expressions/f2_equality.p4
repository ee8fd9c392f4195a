// == and != on headers (validity, then every field; two invalid headers are equal), on
// header stack elements, and on structs built from list and named-field expressions.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
header r_t { bit<8> e1; bit<8> e2; bit<8> e3; bit<8> e4; bit<8> e5; }
struct s_t { bit<8> x; bit<4> y; }
struct headers { r_t r; h_t h1; h_t h2; h_t[2] st; }
struct meta_t { s_t s1; s_t s2; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.r); pkt.extract(hdr.h1); transition select(hdr.h1.a) { 0: accept; default: two; } }
    state two { pkt.extract(hdr.h2); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.r.e1 = (hdr.h1 == hdr.h2) ? 8w1 : 8w0;
        hdr.r.e2 = (hdr.h1 != hdr.h2) ? 8w1 : 8w0;
        meta.s1 = { hdr.h1.b, 4w3 };
        meta.s2 = { x = hdr.h1.b, y = 4w3 };
        hdr.r.e3 = (meta.s1 == meta.s2) ? 8w1 : 8w0;
        hdr.st[0] = hdr.h1;
        hdr.r.e4 = (hdr.st[0] == hdr.h1 && hdr.st[1] == hdr.st[1]) ? 8w1 : 8w0;
        hdr.st[0].setInvalid();
        hdr.r.e5 = (hdr.st[0] == hdr.st[1]) ? 8w1 : 8w0;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.r); pkt.emit(hdr.h1); pkt.emit(hdr.h2); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
