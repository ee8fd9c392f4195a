// standard_metadata.priority chooses the egress queue at enqueue; simple_switch (as the
// STF driver starts it) has one queue per port, so a priority above 0 is dropped with
// an error log, for unicast packets, multicast copies and clones alike.
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        sm.priority = (bit<3>) h.d.x1;
        if (h.d.tag == 1) { sm.mcast_grp = 1; }
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.x2 = (bit<8>) sm.priority; }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
