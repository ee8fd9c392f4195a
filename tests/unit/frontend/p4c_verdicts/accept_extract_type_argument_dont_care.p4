// p4c: accepts. `extract<H>(_)` skips one H (p4c testdata issue774-4-bmv2.p4); a plain
// `extract(_)` has no type and is an error (issue774-2.p4, test_p4c_verdicts.py).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract<h_t>(_); pk.extract(hdr.h); transition accept; }
}
control NoCk(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), NoCk(), I(), E(), NoCk(), D()) main;
