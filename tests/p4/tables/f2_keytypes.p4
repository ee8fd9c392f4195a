// Table keys of unusual types: parser_error (an `error` value, numbered in declaration
// order), a bool metadata field, ingress_port; ternary entries with equal priority (the
// one added first wins) and an lpm /0 catch-all next to longer prefixes.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; }
header x_t { bit<16> x; }
struct headers { h_t h; x_t x; }
struct meta_t { bool flag; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) { 0xEE: parse_x; default: accept; }
    }
    state parse_x { pkt.extract(hdr.x); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action s1(bit<8> v) { hdr.h.r1 = v; }
    action s2(bit<8> v) { hdr.h.r2 = v; }
    action s3(bit<8> v) { hdr.h.r3 = v; }
    action s4(bit<8> v) { hdr.h.r4 = v; }
    table t_err {
        key = { sm.parser_error : exact; }
        actions = { s1; NoAction; }
        default_action = NoAction();
    }
    table t_bool {
        key = { meta.flag : exact; sm.ingress_port : exact; }
        actions = { s2; NoAction; }
        default_action = NoAction();
    }
    table t_tie {
        key = { hdr.h.a : ternary; }
        actions = { s3; NoAction; }
        default_action = NoAction();
    }
    table t_lpm {
        key = { hdr.h.a : lpm; }
        actions = { s4; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        meta.flag = hdr.h.a[0:0] == 1;
        t_err.apply();
        t_bool.apply();
        t_tie.apply();
        t_lpm.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.x); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
