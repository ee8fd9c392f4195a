// Copy-in/copy-out as p4c lowers it for BMv2: sub-controls are inlined by direct argument
// substitution when all call sites agree and arguments do not alias (exit keeps the
// writes), else through temporaries copied out after the body (exit skips the copy-out);
// actions with directional parameters always copy in/out around the body.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct headers {
    h_t h;
    h_t g;
}

struct inner_t {
    bit<8> x;
    bit<8> y;
}

struct meta_t {
    inner_t in1;
    bit<8>  op;
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.g);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control Once(inout bit<8> v, inout h_t hh, in bit<8> op) {
    apply {
        v = v + 1;
        hh.d = 0xdd;
        if (op == 1) {
            exit;
        }
        v = v + 0x10;
    }
}

control Twice(inout h_t hh, in bit<8> op) {
    apply {
        hh.c = hh.c + 1;
        if (op == 2) {
            exit;
        }
    }
}

bit<8> peek(in h_t x, inout h_t y) {
    y.b = 0x99;
    if (x.a == 7) {
        return x.b;
    }
    return x.b + 1;
}

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Once() once;
    Twice() twice;

    action act_exit(inout bit<8> z, inout h_t hz) {
        z = 0x77;
        hz.b = 0x66;
        exit;
    }
    action alias(in h_t src, inout h_t dst) {
        dst.b = src.b + 1;
        dst.c = src.b;
    }
    action clear(out h_t z) {
        z.a = 0x55;
    }
    apply {
        sm.egress_spec = 1;
        meta.op = hdr.h.a;
        meta.in1.x = 0x40;
        if (meta.op == 3) {
            act_exit(meta.in1.x, hdr.g);
        }
        if (meta.op == 4) {
            alias(hdr.g, hdr.g);
            return;
        }
        if (meta.op == 5) {
            clear(hdr.g);
            return;
        }
        if (meta.op >= 6) {
            hdr.g.d = peek(hdr.g, hdr.g);
            hdr.g.a = hdr.g.a + 0xa0;
            exit;
        }
        once.apply(meta.in1.x, hdr.h, meta.op);
        twice.apply(hdr.g, meta.op);
        twice.apply(hdr.h, meta.op);
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (meta.op < 4) {
            hdr.g.a = meta.in1.x;
        }
    }
}

control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.g);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
