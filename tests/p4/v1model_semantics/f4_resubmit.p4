// resubmit_preserving_field_list: only user metadata tagged with the list id survives;
// other metadata (untagged user fields, ingress_port, standard fields) restart at 0; the
// resubmitted pass sees instance_type 6, the original bytes and their length.
struct meta_t {
    @field_list(1) bit<8> kept;
    @field_list(2) bit<8> other_list;
    bit<8> lost;
    @field_list(1) bit<8> pass;
}
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (m.pass == 0) {
            m.kept = 0x11;
            m.other_list = 0x22;
            m.lost = 0x33;
            m.pass = 1;
            h.d.x1 = 0xFF;   // lost: the resubmitted packet is the one received
            resubmit_preserving_field_list(1);
            sm.egress_spec = 3;
        } else {
            h.d.x1 = m.kept ^ m.other_list ^ m.lost;
            h.d.x2 = (bit<8>) sm.instance_type;
            h.d.x3 = (bit<8>) sm.ingress_port;
            h.d.x4 = (bit<16>) sm.packet_length;
            sm.egress_spec = 2;
        }
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
