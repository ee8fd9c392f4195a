// truncate(): the smallest length wins and cuts the final deparsed bytes; it belongs to
// the one packet that called it: ingress clones and multicast copies are not truncated,
// and truncation in egress applies after headers added there.
struct meta_t { }
#include "f4_common.h"

control I(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (h.d.tag == 1) {
            truncate(5);
            truncate(9);
            clone(CloneType.I2E, 4);
        } else if (h.d.tag == 2) {
            truncate(3);
            sm.mcast_grp = 1;
        }
    }
}
control E(inout headers h, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        h.d.x3 = (bit<8>) sm.instance_type;
        if (h.d.tag == 3) {
            h.e.setValid();
            h.e.v = 0x99;
            truncate(8);
        }
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
