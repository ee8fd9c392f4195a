// Multicast replication: several nodes with several ports and rids; each copy sees its
// own egress_rid and egress_port; a group beats egress_spec == drop port; an unknown
// group makes no copy.
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.d.x1 != 0) {
            sm.mcast_grp = (bit<16>) h.d.x1;
        } else {
            sm.egress_spec = 5;
        }
        // BMv2 checks mcast_grp before the drop port, so this copy is still replicated
        if (h.d.x2 == 1) { sm.egress_spec = 511; }
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x2 = (bit<8>) sm.egress_rid;
        h.d.x3 = (bit<8>) sm.egress_port;
        h.d.x4 = (bit<16>) sm.instance_type;
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
