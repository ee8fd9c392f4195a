// select on lookahead, header unions (setValid of one member invalidates the other; the
// union is emitted as its valid member), and a value_set nobody configured (matches nothing).
#include <core.p4>
#include <v1model.p4>

header a_t { bit<8> kind; bit<8> x; }
header b_t { bit<8> kind; bit<16> y; }
header c_t { bit<8> kind; bit<8> z; }
header_union u_t { a_t a; b_t b; }
struct headers { u_t u; c_t c; }
struct meta_t { bit<8> vs_hit; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<8>>(4) vs;
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            0x01: p_a;
            0x02: p_b;
            0x03: p_c;
            default: accept;
        }
    }
    state p_a { pkt.extract(hdr.u.a); transition accept; }
    state p_b { pkt.extract(hdr.u.b); transition accept; }
    state p_c {
        pkt.extract(hdr.c);
        transition select(hdr.c.z) { vs: p_vs_hit; default: accept; }
    }
    state p_vs_hit { meta.vs_hit = 1; transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.u.a.isValid()) {
            if (hdr.u.a.x == 0xFF) {
                hdr.u.b.setValid();
                hdr.u.b.kind = 2;
                hdr.u.b.y = 0xBEEF;
            } else {
                hdr.u.a.x = hdr.u.a.x + 1;
            }
        } else if (hdr.u.b.isValid()) {
            hdr.u.b.y = hdr.u.b.y + 1;
        } else if (hdr.c.isValid()) {
            hdr.c.z = meta.vs_hit + 0x40;
        }
        if (!hdr.u.isValid() && !hdr.c.isValid()) {
            sm.egress_spec = 2;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.u); pkt.emit(hdr.c); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
