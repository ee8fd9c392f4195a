// Divides two packet fields: a zero divisor is a run-time fault (BMv2 aborts on it), the
// real way to reach p4emu's internal-error path without patching generated code.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control NoChecksum(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        hdr.h.a = hdr.h.a / hdr.h.b;
        sm.egress_spec = 1;
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), NoChecksum(), I(), E(), NoChecksum(), D()) main;
