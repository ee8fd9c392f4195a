/* Clone and recirculate requests act where BMv2 checks its packet registers: a pending
   clone at the end of ingress (any CloneType) is an ingress clone, at the end of egress an
   egress clone; a recirculate flag set in ingress is honoured after egress. */
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> itype; bit<8> passes; }
struct metadata { @field_list(1) bit<8> passes; }
struct headers { h_t h; }
parser p(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control vc(inout headers hdr, inout metadata meta) { apply {} }
control ig(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.passes = meta.passes + 1;
        if (hdr.h.op == 1) { clone(CloneType.E2E, 5); }
        if (hdr.h.op == 2 && sm.instance_type == 0) { recirculate_preserving_field_list(1); }
    }
}
control eg(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.itype = (bit<8>)sm.instance_type;
        hdr.h.passes = meta.passes;
        if (hdr.h.op == 3 && sm.instance_type == 0) { clone(CloneType.I2E, 5); }
    }
}
control ck(inout headers hdr, inout metadata meta) { apply {} }
control dp(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(p(), vc(), ig(), eg(), ck(), dp()) main;
