// Value semantics: casts and width inference, signed arithmetic and shifts, saturating
// ops, slices (read and write), concatenation, serializable enums, `type` and typedef
// chains, arbitrary-precision constants, header/struct equality, ternary and switch on
// an expression, division and modulo on run-time values.
#include <core.p4>
#include <v1model.p4>

typedef bit<8>  byte_t;
typedef byte_t  octet_t;
type bit<16>    PortId_t;

enum bit<8> Op {
    ADD  = 1,
    SUB  = 2,
    SHR  = 3,
    CAT  = 4
}

const int BIG = 1 << 40;
const bit<8> ALL = (bit<8>)-1;

header in_t {
    Op      op;
    octet_t x;
    octet_t y;
    bit<16> w;
}

header out_t {
    bit<8>  r0;
    bit<8>  r1;
    bit<8>  r2;
    bit<8>  r3;
    bit<8>  r4;
    bit<8>  r5;
    bit<8>  r6;
    bit<8>  r7;
    bit<16> r8;
    bit<16> r9;
    bit<8>  r10;
    bit<8>  r11;
    bit<64> r12;
    bit<8>  r13;
    bit<8>  r14;
}

header pair_t {
    bit<8> a;
    bit<8> b;
}

struct headers {
    in_t   i;
    out_t  o;
    pair_t p;
    pair_t q;
}

struct s_t {
    bit<8> a;
    bool   flag;
}

struct meta_t {
    s_t s1;
    s_t s2;
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.i);
        transition select(hdr.i.op) {
            Op.CAT: with_pairs;
            default: accept;
        }
    }
    state with_pairs {
        pkt.extract(hdr.p);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.o.setValid();
        int<8> sx = (int<8>)hdr.i.x;
        int<8> sy = (int<8>)hdr.i.y;
        // signed arithmetic, wrap on write
        hdr.o.r0 = (bit<8>)(sx + sy);
        // signed shift right keeps the sign; by >= width gives -1 or 0
        hdr.o.r1 = (bit<8>)(sx >> hdr.i.y[2:0]);
        hdr.o.r2 = (bit<8>)(sx >> hdr.i.y);
        // signed compare
        hdr.o.r3 = sx < sy ? 8w1 : 8w0;
        // signed saturating
        hdr.o.r4 = (bit<8>)(sx |-| sy);
        // unsigned saturating
        hdr.o.r5 = hdr.i.x |+| hdr.i.y;
        // slice write and read
        bit<8> t = hdr.i.x;
        t[7:4] = 4w0xF;
        t[0:0] = 1w0;
        hdr.o.r6 = t;
        // concatenation and unary ops
        hdr.o.r7 = hdr.i.x[3:0] ++ hdr.i.y[7:4];
        hdr.o.r8 = (bit<16>)(-(int<16>)(int<8>)hdr.i.x);
        hdr.o.r9 = ~hdr.i.w + 1;
        // division and modulo, unsigned
        hdr.o.r10 = hdr.i.y != 0 ? hdr.i.x / hdr.i.y : ALL;
        hdr.o.r11 = hdr.i.y != 0 ? hdr.i.x % hdr.i.y : ALL;
        // arbitrary-precision constant, type and casts
        PortId_t port = (PortId_t)hdr.i.w;
        hdr.o.r12 = BIG + (bit<64>)(bit<16>)port + (bit<64>)(1w1 ++ 7w0);
        // switch on an enum-typed expression
        switch (hdr.i.op) {
            Op.ADD: { hdr.o.r13 = hdr.i.x + hdr.i.y; }
            Op.SUB: { hdr.o.r13 = hdr.i.x - hdr.i.y; }
            Op.SHR: { hdr.o.r13 = hdr.i.x >> 1; }
            default: { hdr.o.r13 = (bit<8>)hdr.i.op; }
        }
        // struct and header equality
        meta.s1 = { hdr.i.x, hdr.i.x > 8w0x80 };
        meta.s2 = { a = hdr.i.y, flag = hdr.i.y > 8w0x80 };
        hdr.o.r14 = 0;
        if (meta.s1 == meta.s2) {
            hdr.o.r14 = hdr.o.r14 | 1;
        }
        if (hdr.p == hdr.q) {
            hdr.o.r14 = hdr.o.r14 | 2;
        }
        hdr.q.setValid();
        hdr.q.a = hdr.i.x;
        hdr.q.b = hdr.i.y;
        if (hdr.p == hdr.q) {
            hdr.o.r14 = hdr.o.r14 | 4;
        }
        if (hdr.p != hdr.q) {
            hdr.o.r14 = hdr.o.r14 | 8;
        }
        hdr.q.setInvalid();
        sm.egress_spec = 1;
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.i);
        pkt.emit(hdr.o);
        pkt.emit(hdr.p);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
