// Clone to a multicast group (mirroring_add_mc): the I2E copies keep instance_type 1 and
// get the node's rid. Egress-to-egress clone of a multicast copy: the clone takes the
// headers as egress left them, its metadata is zeroed (egress_rid 0), instance_type 2,
// and it is cloned before the original's egress drop takes effect.
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (h.d.tag == 1) {
            clone(CloneType.I2E, 6);
            sm.egress_spec = 1;
        } else if (h.d.tag == 2) {
            sm.mcast_grp = 2;
        } else {
            mark_to_drop(sm);
        }
        h.d.x1 = 0xBB;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x2 = (bit<8>) sm.egress_rid;
        h.d.x3 = (bit<8>) sm.egress_port;
        h.d.x4 = (bit<16>) sm.instance_type;
        if (sm.instance_type == 5 && sm.egress_rid == 40) {
            clone(CloneType.E2E, 9);
            h.d.tag = 0x77;
            mark_to_drop(sm);
        }
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
