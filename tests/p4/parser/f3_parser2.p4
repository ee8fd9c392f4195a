// More parser forms: `default` and `_` inside tuple keysets, explicit reject,
// select on lookahead<bit<N>>() directly, advance, a sub-parser with a constructor
// parameter applied twice, parser-local variables initialized from parameters.
#include <core.p4>
#include <v1model.p4>

header b_t { bit<8> v; }
struct headers { b_t first; b_t second; b_t third; }
struct meta_t { bit<8> seen; }

parser Grab(packet_in pkt, out b_t b, inout meta_t meta)(bit<8> tag) {
    state start { pkt.extract(b); meta.seen = meta.seen + tag; transition accept; }
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Grab(8w1) g1;
    Grab(8w0x10) g2;
    bit<9> port = sm.ingress_port;
    state start {
        transition select(pkt.lookahead<bit<8>>(), port) {
            (0xff, _): drop_it;
            (0xaa, default): skip_one;
            default: normal;
        }
    }
    state drop_it { transition reject; }
    state skip_one { pkt.advance(8); transition normal; }
    state normal {
        g1.apply(pkt, hdr.first, meta);
        g2.apply(pkt, hdr.second, meta);
        transition accept;
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error != error.NoError) { mark_to_drop(sm); }
        hdr.third.setValid();
        hdr.third.v = meta.seen;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
