// Assorted BMv2 details: byte counters count the ingress length even after encapsulation;
// the I2E clone is re-parsed with the real ingress port; an E2E clone leaves even when the
// original is dropped in egress; random() with a one-value range; equal ternary priorities
// (the earlier entry wins); an lpm /0 default route.
#include <core.p4>
#include <v1model.p4>

header outer_t {
    bit<8> tag;
}

header h_t {
    bit<8>  op;
    bit<8>  port_kind;
    bit<8>  r0;
    bit<8>  r1;
    bit<32> dst;
}

struct headers {
    outer_t outer;
    h_t     h;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            9w7: with_outer;
            default: plain;
        }
    }
    state with_outer {
        pkt.extract(hdr.outer);
        transition plain;
    }
    state plain {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(4, CounterType.bytes) in_bytes;

    action set_r0(bit<8> v) { hdr.h.r0 = v; }
    table tern {
        key = { hdr.h.op : ternary; }
        actions = { set_r0; NoAction; }
        default_action = NoAction();
    }
    action route(bit<9> port) { sm.egress_spec = port; }
    table lpm {
        key = { hdr.h.dst : lpm; }
        actions = { route; }
        default_action = route(0);
    }
    apply {
        lpm.apply();
        tern.apply();
        hdr.h.port_kind = hdr.outer.isValid() ? 8w0x0B : 8w0x0A;
        if (hdr.h.op == 1) {
            hdr.outer.setValid();
            hdr.outer.tag = 0xEE;
            in_bytes.count(1);
        } else if (hdr.h.op == 2) {
            clone(CloneType.I2E, 32w3);
        } else if (hdr.h.op == 4) {
            bit<8> r = 0x77;
            random(r, 8w42, 8w42);
            hdr.h.r1 = r;
        }
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(4, CounterType.bytes) out_bytes;
    apply {
        if (hdr.h.op == 1) {
            out_bytes.count(1);
        }
        if (hdr.h.op == 3 && sm.instance_type == 0) {
            clone(CloneType.E2E, 32w3);
            mark_to_drop(sm);
        }
        if (sm.instance_type != 0) {
            hdr.h.r1 = (bit<8>)sm.instance_type;
        }
    }
}

control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.outer);
        pkt.emit(hdr.h);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
