// recirculate_preserving_field_list: the deparsed packet (with the header added in
// egress) comes back with instance_type 4, packet_length = deparsed size, only the
// listed user metadata kept, ingress_port 0. The first pass is not transmitted; egress
// sees instance_type 0 again.
struct meta_t { @field_list(3) bit<8> n; bit<8> lost; }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 4) {
            h.d.x1 = (bit<8>) sm.ingress_port;
            h.d.x2 = m.n;
            h.d.x3 = m.lost;
            h.d.x4 = (bit<16>) sm.packet_length;
        }
        sm.egress_spec = 2;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        // unicast re-labels every packet NORMAL (0) before egress, recirculated or not,
        // so the recirculated pass is recognised by its header
        if (h.d.tag != 0xEE) {
            h.d.tag = 0xEE;
            h.e.setValid();
            h.e.v = 0x5A;
            m.n = 9;
            m.lost = 0x44;
            recirculate_preserving_field_list(3);
        } else {
            h.e.v = (bit<8>) sm.instance_type;
        }
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
