// I2E clone with a field list: the copy gets the listed user metadata as ingress left
// it at the end (not when clone was called), everything else zeroed; a field in two
// lists travels with either. Without a list (plain clone) nothing survives.
struct meta_t {
    @field_list(2) bit<8> a;
    @field_list(2, 3) bit<8> b;
    bit<8> c;
}
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.a = 0x0A;
        m.b = 0x0B;
        m.c = 0x0C;
        if (h.d.tag == 2) {
            clone_preserving_field_list(CloneType.I2E, 4, 2);
        } else if (h.d.tag == 3) {
            clone_preserving_field_list(CloneType.I2E, 4, 3);
        } else {
            clone(CloneType.I2E, 4);
        }
        m.a = 0xA1;   // after the call: still what the clone gets
        sm.egress_spec = 1;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x1 = m.a;
        h.d.x2 = m.b;
        h.d.x3 = m.c;
        h.d.x4 = (bit<16>) sm.instance_type;
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
