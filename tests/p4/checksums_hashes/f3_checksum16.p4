// csum16 of two fields into a third in the compute-checksum control: what the deprecated
// Checksum16's `f = ck.get(data)` meant (p4c 1.2.5 refuses any Checksum16 instance).
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
    apply { update_checksum(true, { hdr.h.a, hdr.h.b }, hdr.h.ck, HashAlgorithm.csum16); }
}
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
