// Indexed packet meters configured from the CLI: colour 0 GREEN, 1 YELLOW, 2 RED.
// Buckets start full; the peak bucket is tested first; an unconfigured meter is GREEN;
// rates with CIR > PIR are refused and leave the meter unconfigured.
struct meta_t { bit<32> colour; bit<32> colour2; }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    meter(4, MeterType.packets) m1;
    meter(4, MeterType.packets) m2;
    apply {
        m1.execute_meter((bit<32>) h.d.x1, m.colour);
        m2.execute_meter((bit<32>) h.d.x1, m.colour2);
        h.d.x2 = (bit<8>) m.colour;
        h.d.x3 = (bit<8>) m.colour2;
        sm.egress_spec = 1;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
