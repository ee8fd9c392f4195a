// Several ports in one test: order is judged per port only; dropped packets leave
// nothing on a watched port; table-driven forwarding with a drop default.
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    action set_port(bit<9> p) { sm.egress_spec = p; }
    action drop() { mark_to_drop(sm); }
    table fwd {
        key = { h.d.x1 : exact; }
        actions = { set_port; drop; }
        default_action = drop();
    }
    apply { fwd.apply(); }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.x3 = (bit<8>) sm.egress_port; }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
