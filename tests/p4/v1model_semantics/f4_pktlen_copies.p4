// Where the setValid/setInvalid length adjustment goes: multicast copies and E2E clones
// inherit the adjusted length; I2E clones and resubmitted packets restart from the
// received length (their bytes are the received ones). In egress the adjustment does
// not show in packet_length itself (only the hidden length register moves).
struct meta_t { @field_list(1) bit<8> pass; }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (h.d.tag == 1) {
            h.e.setValid();
            h.e.v = 1;
            sm.mcast_grp = 1;
        } else if (h.d.tag == 2) {
            h.e.setValid();
            clone(CloneType.I2E, 5);
        } else if (h.d.tag == 3) {
            if (m.pass == 0) {
                m.pass = 1;
                h.e.setValid();
                resubmit_preserving_field_list(1);
            } else {
                h.d.x3 = (bit<8>) sm.packet_length;
            }
        }
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x4 = (bit<16>) sm.packet_length;
        if (h.d.tag == 4 && sm.instance_type == 0) {
            h.e.setValid();
            h.e.v = 0x44;
            h.d.x3 = (bit<8>) sm.packet_length;
            clone(CloneType.E2E, 5);
        }
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
