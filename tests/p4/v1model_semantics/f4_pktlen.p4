// standard_metadata.packet_length: ingress sees the received length; setValid and
// setInvalid in ingress move the length egress sees by the header size, but only when
// they flip validity (a second setValid, or setInvalid of an invalid header, is a no-op).
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x3 = (bit<8>) sm.packet_length;
        if (h.d.tag == 1) {
            h.e.setValid();
        } else if (h.d.tag == 0xEE) {
            h.e.setInvalid();
        } else if (h.d.tag == 2) {
            h.e.setValid();
            h.e.setValid();
        } else if (h.d.tag == 3) {
            h.e.setValid();
            h.e.setInvalid();
        } else if (h.d.tag == 4) {
            h.e.setInvalid();
        }
        sm.egress_spec = 1;
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply { h.d.x4 = (bit<16>) sm.packet_length; }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
