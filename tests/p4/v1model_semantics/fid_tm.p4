// Traffic-manager and extern edge cases: multicast beats unicast, writes after
// mark_to_drop, unknown multicast groups, clone session ids >= 32768, unconfigured
// sessions, the last clone call winning, out-of-range register/counter/meter indices
// leaving destinations unchanged, priorities beyond the (single) queue per port.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  op;
    bit<8>  arg;
    bit<8>  r0;
    bit<8>  r1;
    bit<8>  r2;
    bit<8>  r3;
}

struct headers {
    h_t h;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) regs;
    counter(4, CounterType.packets) cnt;
    meter(4, MeterType.packets) mtr;

    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 1) {
            // multicast wins over the unicast egress_spec
            sm.mcast_grp = 1;
        } else if (hdr.h.op == 2) {
            // a write after mark_to_drop forwards again
            mark_to_drop(sm);
            sm.egress_spec = 3;
        } else if (hdr.h.op == 3) {
            // an unknown group makes no copies and the original is gone
            sm.mcast_grp = 77;
        } else if (hdr.h.op == 4) {
            // session 32773 = 0x8005 is looked up as session 5
            clone(CloneType.I2E, 32w32773);
        } else if (hdr.h.op == 5) {
            // the last clone call wins; session 9 is not configured -> no clone
            clone(CloneType.I2E, 32w5);
            clone(CloneType.I2E, 32w9);
        } else if (hdr.h.op == 6) {
            // out-of-range indices: no update, destinations unchanged
            bit<8> v = 0xAB;
            regs.write(32w7, 8w0x55);
            regs.read(v, 32w9);
            hdr.h.r0 = v;
            regs.write(32w1, hdr.h.arg);
            regs.read(v, 32w1);
            hdr.h.r1 = v;
            bit<8> colour = 0xCD;
            mtr.execute_meter(32w8, colour);
            hdr.h.r2 = colour;
            mtr.execute_meter(32w2, colour);
            hdr.h.r3 = colour;
            cnt.count(32w4);
            cnt.count(32w3);
        } else if (hdr.h.op == 7) {
            // priority >= the number of queues per port (1 by default) -> dropped at enqueue
            sm.priority = (bit<3>)hdr.h.arg;
        }
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 5) {
            hdr.h.r0 = (bit<8>)sm.egress_rid;
        }
    }
}

control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
