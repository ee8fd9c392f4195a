// Functions: generic functions, functions calling functions, out/inout parameters,
// default parameter values, named arguments in any order, early return, functions
// returning structs and bools, and calls from actions, parsers and controls.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; bit<8> f; }
struct headers { h_t h; }
struct meta_t { }
struct pair_t { bit<8> x; bit<8> y; }

bit<8> max8(in bit<8> p, in bit<8> q) {
    if (p > q) { return p; }
    return q;
}
bit<8> max3(bit<8> p, bit<8> q, bit<8> r) { return max8(max8(p, q), r); }
T pick<T>(bool c, T p, T q) { return c ? p : q; }
void swap<T>(inout T p, inout T q) { T t = p; p = q; q = t; }
pair_t mkpair(bit<8> x, bit<8> y) { return { x = x, y = y }; }
bool is_small(in bit<8> v) { return v < 16; }
void add_to(inout bit<8> acc, in bit<8> v, in bit<8> times = 1) { acc = acc + v * times; }
void outs(out bit<8> o1, out bit<8> o2) { o1 = 1; o2 = 2; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(is_small(hdr.h.a)) { true: small; default: accept; }
    }
    state small { hdr.h.f = max8(hdr.h.f, 8w0x40); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action act(bit<8> v) { add_to(times = 2, v = v, acc = hdr.h.e); }
    table t { key = { hdr.h.a : exact; } actions = { act; } default_action = act(3); }
    apply {
        sm.egress_spec = 1;
        hdr.h.c = max3(hdr.h.a, hdr.h.b, 8w0x30);
        pair_t p = mkpair(hdr.h.a, hdr.h.b);
        swap(p.x, p.y);
        swap<bit<8>>(hdr.h.a, hdr.h.b);
        hdr.h.d = pick(p.x == hdr.h.a, 8w0xAA, 8w0xBB) + pick<bit<8>>(false, 1, 2);
        add_to(hdr.h.e, 1);
        t.apply();
        bit<8> o1; bit<8> o2;
        outs(o1, o2);
        hdr.h.e = hdr.h.e + o1 + o2;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
