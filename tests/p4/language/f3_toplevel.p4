// V1Switch arguments given by name out of order, one a control with a constructor
// argument. (Top-level instances of parsers and controls, `P() p;`, are errors in p4c:
// "cannot instantiate at top-level"; only packages and externs may be instantiated there.)
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm)(bit<8> k) {
    apply { sm.egress_spec = 1; hdr.h.a = hdr.h.a + k; }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(dep = D(), ck = CC(), eg = E(), ig = I(8w3), vr = VC(), p = P()) main;
