// Expression and statement breadth: arbitrary-precision int constants, slice
// assignment, saturating arithmetic, variable shifts, header stack operations,
// struct-literal assignment to a struct holding headers, explicit type arguments on
// extern calls, control constructor parameters with default values, actions calling
// actions, exit/return in actions and apply blocks, register<T, I>, assert/assume.
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

const int BIG = 1 << 70;
const bit<8> FROM_BIG = (bit<8>)(BIG >> 66);   // 16
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; bit<8> f; }
header s_t { bit<8> v; }
struct inner_t { s_t one; bit<8> x; }
struct headers { h_t h; s_t[3] st; }
struct meta_t { inner_t in_; error e; }

control Scale(inout bit<8> v)(bit<8> factor = 3, bool neg = false) {
    apply { v = v * factor; if (neg) { v = -v; } }
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.st.next); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>, bit<2>>(4) regs;
    Scale() s3;
    Scale(neg = true, factor = 2) sneg;
    action inner(inout bit<8> x) { x = x + 1; }
    action outer() { inner(hdr.h.f); inner(hdr.h.f); }
    action maybe_exit() { if (hdr.h.a == 0xee) { exit; } return; hdr.h.a = 0; }
    apply {
        sm.egress_spec = 1;
        maybe_exit();
        hdr.h.b[3:0] = 4w0xc;
        hdr.h.c = hdr.h.c |+| 8w0xf0;
        hdr.h.d = hdr.h.d |-| 8w0x10;
        hdr.h.e = FROM_BIG << hdr.h.a[1:0];
        outer();
        hdr.st.push_front(1);
        hdr.st[0].setValid();
        hdr.st[0].v = (bit<8>)hdr.st.lastIndex;
        meta.in_ = { { 8w0x5 }, 8w7 };
        hdr.st[2] = meta.in_.one;
        regs.write(2w1, hdr.h.a);
        bit<8> r;
        regs.read(r, 1);
        bit<16> hv;
        hash<bit<16>, bit<16>, tuple<bit<8>>, bit<32>>(hv, HashAlgorithm.identity, 16w0, { r }, 32w256);
        s3.apply(hdr.h.a);
        sneg.apply(hdr.h.a);
        hdr.h.a = hdr.h.a + (bit<8>)hv;
        assert(hdr.st[1].isValid());
        assume(meta.in_.x == 7);
        if (hdr.h.f == 0x99) { return; }
        hdr.h.f = hdr.h.f + 0x10;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.st); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
