// Egress-to-egress clone to a multicast session with a field list: each copy keeps the
// listed user metadata, loses the rest, has instance_type 2 (multicast does not change
// it) and the rid of its replication node; its headers are those the original's egress
// left.
struct meta_t { @field_list(1) bit<8> keep; bit<8> lost; }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            m.keep = 0x5C;
            m.lost = 0x66;
            clone_preserving_field_list(CloneType.E2E, 3, 1);
            h.d.x1 = 0xAB;
            h.d.tag = h.d.tag + 1;
        } else {
            h.d.x1 = m.keep;
            h.d.x2 = m.lost;
        }
        h.d.x3 = (bit<8>) sm.egress_port;
        h.d.x4 = ((bit<16>) sm.instance_type << 8) | sm.egress_rid;
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
