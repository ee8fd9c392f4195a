// Header stacks: next/last in the parser, push_front/pop_front, StackOutOfBounds.
#include <core.p4>
#include <v1model.p4>

header first_t {
    bit<8> n;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    first_t    first;
    item_t[4]  stk;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.first);
        transition parse_item;
    }
    state parse_item {
        pkt.extract(hdr.stk.next);
        transition select(hdr.stk.last.v) {
            0: accept;
            default: parse_item;
        }
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) {
            hdr.first.n = 0xe3;
        } else if (hdr.first.n == 2) {
            hdr.stk.pop_front(1);
        } else {
            hdr.stk.push_front(1);
            hdr.stk[0].setValid();
            hdr.stk[0].v = 0xaa;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.first);
        pkt.emit(hdr.stk);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
