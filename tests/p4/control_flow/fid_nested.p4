// Nested blocks: a sub-parser applied from a parser state (with an out header and an
// inout counter), a sub-control with its own table instantiated twice (distinct
// control-plane names I.outer_acl.t / I.inner_acl.t), constructor
// parameters, and a function with an early return.
#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> kind;
    bit<8> val;
}

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> r0;
    bit<8> r1;
    bit<8> r2;
}

struct headers {
    tag_t t0;
    tag_t t1;
    h_t   h;
}

struct meta_t {
    bit<8> ntags;
}

parser TagParser(packet_in pkt, out tag_t t, inout bit<8> count) {
    state start {
        pkt.extract(t);
        count = count + 1;
        transition accept;
    }
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    TagParser() tp;
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            0xF0 &&& 0xF0: tags;
            default: body;
        }
    }
    state tags {
        tp.apply(pkt, hdr.t0, meta.ntags);
        transition select(pkt.lookahead<bit<8>>()) {
            0xF0 &&& 0xF0: tag2;
            default: body;
        }
    }
    state tag2 {
        tp.apply(pkt, hdr.t1, meta.ntags);
        transition body;
    }
    state body {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

bit<8> clamp(in bit<8> v, in bit<8> hi) {
    if (v > hi) {
        return hi;
    }
    return v;
}

control Acl(inout bit<8> key, out bit<8> verdict)(bit<8> miss_value) {
    action set(bit<8> v) { verdict = v; }
    action miss() { verdict = miss_value; }
    table t {
        key = { key : exact; }
        actions = { set; miss; }
        default_action = miss();
    }
    apply {
        t.apply();
        key = key + 1;
    }
}

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Acl(8w0xEE) outer_acl;
    Acl(8w0xDD) inner_acl;
    apply {
        sm.egress_spec = 1;
        outer_acl.apply(hdr.h.a, hdr.h.r0);
        inner_acl.apply(hdr.h.b, hdr.h.r1);
        hdr.h.r2 = clamp(meta.ntags + hdr.t0.val, 8w10);
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.t0);
        pkt.emit(hdr.t1);
        pkt.emit(hdr.h);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
