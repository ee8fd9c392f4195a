// Tutorial-style parsing: select over members of lookahead<header>(), lookahead of a
// struct-free bit<N> in a select, stacks filled with .next in a loop counted by
// metadata, pop_front/push_front, constants as select labels.
#include <core.p4>
#include <v1model.p4>

const bit<8> MAGIC = 0x50;   // 'P'
header calc_t { bit<8> p; bit<8> four; bit<8> op; bit<8> a; bit<8> b; bit<8> res; }
header hop_t { bit<7> cnt; bit<1> bos; }
struct headers { calc_t calc; hop_t[4] hops; }
struct meta_t { bit<8> remaining; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<calc_t>().p, pkt.lookahead<calc_t>().four) {
            (MAGIC, 0x04): parse_calc;
            default: parse_hops;
        }
    }
    state parse_calc { pkt.extract(hdr.calc); transition accept; }
    state parse_hops {
        pkt.extract(hdr.hops.next);
        transition select(hdr.hops.last.bos) {
            1: accept;
            default: parse_hops;
        }
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.calc.isValid()) {
            if (hdr.calc.op == 0x2b) { hdr.calc.res = hdr.calc.a + hdr.calc.b; }
            else if (hdr.calc.op == 0x2d) { hdr.calc.res = hdr.calc.a - hdr.calc.b; }
            else { hdr.calc.res = hdr.calc.a & hdr.calc.b; }
        } else {
            hdr.hops.pop_front(1);
            hdr.hops.push_front(2);
            hdr.hops[0].setValid();
            hdr.hops[0].cnt = 0x7f;
            hdr.hops[0].bos = 0;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.calc); pkt.emit(hdr.hops); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
