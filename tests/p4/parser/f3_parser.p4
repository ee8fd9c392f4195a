// Parser breadth: value_set in select, tuple keys with masks, ranges and `_`,
// lookahead of bits and of a header, a sub-parser instantiated with constructor-less
// apply, verify with a custom error, error comparisons, local variables and constants
// in parser scope, parser-local instantiated value sets.
#include <core.p4>
#include <v1model.p4>

error { BadVersion }
header tag_t { bit<4> ver; bit<4> kind; bit<8> len; }
header opt_t { bit<8> v; }
header out_t { bit<8> state_code; bit<8> err; bit<8> peek; }
struct headers { tag_t tag; opt_t o1; opt_t o2; out_t res; }
struct meta_t { bit<8> code; }
struct vs_t { bit<8> f; }

parser Sub(packet_in pkt, inout headers hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.o2);
        meta.code = meta.code | 0x80;
        transition accept;
    }
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<8>>(4) special;
    value_set<vs_t>(2) special_struct;
    Sub() sub;
    const bit<8> LIMIT = 0x10;
    bit<8> local_count = 0;
    state start {
        hdr.res.setValid();
        hdr.res.peek = pkt.lookahead<bit<8>>();
        tag_t peeked = pkt.lookahead<tag_t>();
        local_count = peeked.len;
        pkt.extract(hdr.tag);
        verify(hdr.tag.ver != 0xf, error.BadVersion);
        transition select(hdr.tag.ver, hdr.tag.kind) {
            (1, 0 &&& 0x8): code1;          // kind with top bit clear
            (1, _): code2;
            (2, 0..3): code3;
            (2, 4..15): sub_path;
            (3, _): check_set;
            default: accept;
        }
    }
    state code1 { meta.code = 1; transition accept; }
    state code2 { meta.code = 2; transition accept; }
    state code3 { meta.code = 3 + (local_count > LIMIT ? 8w0x10 : 8w0); transition accept; }
    state sub_path { meta.code = 4; sub.apply(pkt, hdr, meta); transition accept; }
    state check_set {
        pkt.extract(hdr.o1);
        transition select(hdr.o1.v) {
            special: in_set;
            default: check_struct_set;
        }
    }
    state check_struct_set {
        transition select(hdr.o1.v) {
            special_struct: in_struct_set;
            default: accept;
        }
    }
    state in_set { meta.code = 5; transition accept; }
    state in_struct_set { meta.code = 6; transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.res.state_code = meta.code;
        if (sm.parser_error == error.BadVersion) { hdr.res.err = 1; }
        else if (sm.parser_error == error.NoError) { hdr.res.err = 0; }
        else if (sm.parser_error == error.PacketTooShort) { hdr.res.err = 2; }
        else { hdr.res.err = 3; }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.res); pkt.emit(hdr.tag); pkt.emit(hdr.o1); pkt.emit(hdr.o2); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
