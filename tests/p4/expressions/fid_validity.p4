// Header validity: setValid on valid headers, reads after setInvalid, writes to invalid
// headers, header assignment copying validity, header unions, stacks with holes,
// push/pop beyond the size, whole-stack assignment.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

header w_t {
    bit<16> v;
}

header_union u_t {
    h_t h;
    w_t w;
}

header r_t {
    bit<8> r0;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
    bit<8> r4;
    bit<8> r5;
}

struct headers {
    r_t    rep;
    h_t    x;
    h_t    y;
    h_t    z;
    u_t    u;
    h_t[3] s;
    h_t[3] t;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.x);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.rep.setValid();
        // setValid on a valid header keeps its fields
        hdr.x.setValid();
        hdr.rep.r0 = hdr.x.a;
        // a write to an invalid header is kept but the header stays invalid
        hdr.y.a = 0x5A;
        hdr.rep.r1 = hdr.y.isValid() ? 8w0xFF : hdr.y.a;
        // setValid on an invalid header zeroes it
        hdr.y.setValid();
        hdr.rep.r2 = hdr.y.a;
        // assignment copies validity: z gets y (valid), then y gets an invalid header
        hdr.z = hdr.y;
        hdr.z.b = 0x77;
        hdr.y = hdr.u.h;
        hdr.rep.r3 = (hdr.y.isValid() ? 1w1 : 1w0) ++ (bit<7>)(hdr.z.isValid() ? 1w1 : 1w0);
        // unions: making one member valid invalidates the other
        hdr.u.w.setValid();
        hdr.u.w.v = 0xBEEF;
        if (hdr.x.a == 2) {
            hdr.u.h.setValid();
            hdr.u.h.a = 0x11;
            hdr.u.h.b = 0x22;
        }
        hdr.rep.r4 = (hdr.u.h.isValid() ? 8w0x10 : 8w0) | (hdr.u.w.isValid() ? 8w0x01 : 8w0);
        // stacks: a hole in the middle, copy to t then shift
        hdr.t = hdr.s;
        hdr.s[1].setInvalid();
        if (hdr.x.a == 3) {
            hdr.t.push_front(2);
            hdr.t[0].setValid();
            hdr.t[0].a = 0xA0;
        } else if (hdr.x.a == 4) {
            hdr.t.pop_front(5);
        } else if (hdr.x.a == 5) {
            hdr.t.pop_front(1);
        }
        hdr.rep.r5 = (hdr.t[0].isValid() ? 8w4 : 8w0) | (hdr.t[1].isValid() ? 8w2 : 8w0) |
                     (hdr.t[2].isValid() ? 8w1 : 8w0);
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
