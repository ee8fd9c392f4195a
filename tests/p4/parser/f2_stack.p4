// Header stacks: extract(next) loops ended by a bottom-of-stack bit, StackOutOfBounds when a
// fourth element arrives (the three extracted stay valid, the rest is payload),
// PacketTooShort mid-stack, and table keys on stack elements (`tags$0.v`,
// `tags$1.$valid$` in STF).
#include <core.p4>
#include <v1model.p4>

header info_t { bit<8> err; bit<8> n; bit<8> r; }
header tag_t { bit<7> v; bit<1> bos; }
struct headers { info_t info; tag_t[3] tags; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.info); transition parse_tag; }
    state parse_tag {
        pkt.extract(hdr.tags.next);
        transition select(hdr.tags.last.bos) { 0: parse_tag; 1: accept; }
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action setr(bit<8> r) { hdr.info.r = r; }
    table stk_t {
        key = { hdr.tags[0].v : exact; hdr.tags[1].isValid() : exact; }
        actions = { setr; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.NoError) {
            hdr.info.err = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.info.err = 1;
        } else if (sm.parser_error == error.StackOutOfBounds) {
            hdr.info.err = 3;
        } else {
            hdr.info.err = 0xEE;
        }
        bit<8> n = 0;
        if (hdr.tags[0].isValid()) { n = n + 1; }
        if (hdr.tags[1].isValid()) { n = n + 1; }
        if (hdr.tags[2].isValid()) { n = n + 1; }
        hdr.info.n = n;
        stk_t.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.info); pkt.emit(hdr.tags); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
