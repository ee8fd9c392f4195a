// Ingress-to-egress clone to a port: the copy carries the bytes as received (re-parsed,
// so ingress edits are lost), instance_type 1 and the received packet_length. Unknown
// sessions clone nothing; the session id is taken modulo 0x8000; the last clone call
// wins; a dropped original is still cloned.
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (h.d.tag == 1) {
            clone(CloneType.I2E, 5);
        } else if (h.d.tag == 2) {
            clone(CloneType.I2E, 3);
        } else if (h.d.tag == 3) {
            clone(CloneType.I2E, 32w0x8005);
        } else if (h.d.tag == 4) {
            clone(CloneType.I2E, 5);
            clone(CloneType.I2E, 3);
        } else if (h.d.tag == 5) {
            clone(CloneType.I2E, 5);
            mark_to_drop(sm);
        }
        h.d.x1 = 0xAA;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x2 = (bit<8>) sm.egress_port;
        h.d.x3 = (bit<8>) sm.instance_type;
        h.d.x4 = (bit<16>) sm.packet_length;
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
