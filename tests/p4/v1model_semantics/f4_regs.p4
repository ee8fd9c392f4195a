// register_write / register_reset from the CLI, then packets that read the register;
// counter_write then count: the written values are the base the data plane adds to.
struct meta_t { bit<16> v; }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<16>>(4) r;
    counter(4, CounterType.packets_and_bytes) c;
    apply {
        r.read(m.v, (bit<32>) h.d.x1);
        h.d.x4 = m.v;
        r.write((bit<32>) h.d.x1, m.v + 1);
        c.count((bit<32>) h.d.x1);
        sm.egress_spec = 1;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
