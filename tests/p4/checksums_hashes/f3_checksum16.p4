// The deprecated Checksum16 extern: `f = ck.get(data)` in the compute-checksum control
// (p4c's BMv2 back end makes it a csum16 checksum of data stored into f).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> a; bit<16> b; bit<16> ck; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) {
    Checksum16() ck;
    apply { hdr.h.ck = ck.get({ hdr.h.a, hdr.h.b }); }
}
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
