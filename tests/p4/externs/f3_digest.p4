// digest() data forms p4c accepts for v1model: a named struct, a list typed by an
// explicit type argument, an untyped list (a tuple) and a header.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<16> b; }
struct headers { h_t h; }
struct meta_t { }
struct learn_t { bit<8> a; bit<9> port; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.a == 1) {
            learn_t l = { hdr.h.a, sm.ingress_port };
            digest(1, l);
        } else if (hdr.h.a == 2) {
            digest<learn_t>(1, { hdr.h.a, sm.ingress_port });
        } else if (hdr.h.a == 3) {
            digest(1, { hdr.h.a, hdr.h.b });
        } else {
            digest(1, hdr.h);
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
