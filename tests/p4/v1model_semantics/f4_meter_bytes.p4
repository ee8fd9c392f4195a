// A byte meter charges the received length (not the length after setValid), and a
// meter executed through a table action with the index from a parameter.
struct meta_t { bit<8> colour; }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    meter(2, MeterType.bytes) mb;
    action meter_it(bit<32> idx) { mb.execute_meter(idx, m.colour); }
    table t {
        key = { h.d.x1 : exact; }
        actions = { meter_it; NoAction; }
        default_action = NoAction();
    }
    apply {
        h.e.setValid();   // adds a byte to what leaves, not to what the meter charges
        t.apply();
        h.e.v = m.colour;
        sm.egress_spec = 1;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
