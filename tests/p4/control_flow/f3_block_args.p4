// Controls and parsers passed as constructor arguments: a control type declaration
// used as a parameter type, instances built inline (`Wrap(Inc(2))`) and by name, and a
// sub-parser handed to a parser; p4c inlines each argument into its receiver.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; h_t h2; }
struct meta_t { }

control Step_t(inout bit<8> v);
control Inc(inout bit<8> v)(bit<8> by) { apply { v = v + by; } }
control Dbl(inout bit<8> v) { apply { v = v << 1; } }
control Wrap(inout bit<8> v)(Step_t first, Step_t second) {
    apply { first.apply(v); second.apply(v); }
}
parser Sub_t(packet_in pkt, out h_t h);
parser Grab(packet_in pkt, out h_t h) { state start { pkt.extract(h); transition accept; } }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm)(Sub_t sub) {
    state start { pkt.extract(hdr.h); sub.apply(pkt, hdr.h2); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Dbl() dbl;
    Wrap(Inc(8w2), dbl) w;
    apply { sm.egress_spec = 1; w.apply(hdr.h.a); }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.h2); } }
V1Switch(P(Grab()), VC(), I(), E(), CC(), D()) main;
