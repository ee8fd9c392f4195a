// The order of BMv2's end-of-ingress / end-of-egress decisions: I2E clone, then resubmit
// (which beats multicast and the drop port), then multicast, then the drop port; in
// egress, E2E clone, then the drop (which also cancels recirculation), then recirculate.
struct meta_t { @field_list(1) bit<8> pass; }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 4;
        if (m.pass == 0 && h.d.tag == 1) {
            // clone + resubmit + multicast + drop in one pass
            m.pass = 1;
            clone(CloneType.I2E, 2);
            resubmit_preserving_field_list(1);
            sm.mcast_grp = 1;
            mark_to_drop(sm);
            sm.mcast_grp = 1;
        } else if (h.d.tag == 2) {
            // multicast and I2E clone together
            clone(CloneType.I2E, 2);
            sm.mcast_grp = 1;
        }
        h.d.x1 = m.pass;
        h.d.x2 = (bit<8>) sm.instance_type;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x3 = (bit<8>) sm.egress_port;
        if (h.d.tag == 3 && sm.instance_type == 0) {
            // dropped before deparsing: neither transmitted nor recirculated
            recirculate_preserving_field_list(1);
            mark_to_drop(sm);
        } else if (h.d.tag == 4 && sm.instance_type == 0) {
            // the E2E clone is made, the original recirculates once (tag becomes 5)
            clone(CloneType.E2E, 2);
            h.d.tag = 5;
            recirculate_preserving_field_list(1);
        }
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
