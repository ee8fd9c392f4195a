// CLI changes between packets: mc_node_update replaces a node's ports,
// mirroring_delete removes a session, a port listed twice in one node yields one
// copy, and a clone session pointing at an empty group yields no copy.
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.d.tag == 1) {
            sm.mcast_grp = 1;
        } else {
            clone(CloneType.I2E, (bit<32>) h.d.x1);
            sm.egress_spec = 1;
        }
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
