// Less common productions of p4c's grammar: typedef of an inline header/struct
// declaration, unary plus, `_` as an argument for an out parameter (also by name),
// parenthesized lvalues, if statements and blocks in parser states, a direct parser
// invocation in a state, entries with `priority = (expr):`, structured annotations
// with trailing commas, key/value struct initializers ending in `...`, switch labels
// on constants and a forward `extern Name;`.
#include <core.p4>
#include <v1model.p4>

typedef header h_def_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; } h_t;
typedef struct trip_s { bit<8> x; bit<8> y; bit<8> z; } trip_t;
header x_t { bit<8> v; }
struct headers { h_t h; x_t x; }
struct meta_t { trip_t t; }
const bit<8> LABEL = 7;
extern FwdThing;   // a forward extern name (never used)

void two_outs(out bit<8> first, out bit<8> second) { first = 0x11; second = 0x22; }

parser Extra(packet_in pkt, inout headers hdr) {
    state start { pkt.extract(hdr.x); transition accept; }
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        @blk {
            if (hdr.h.a == 0x10) {
                Extra.apply(pkt, hdr);
            } else {
                meta.t.x = 1;
            }
        }
        transition accept;
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @structured_anno[a = 1, b = "two",]
    action setb(bit<8> v) { hdr.h.b = v; }
    table t {
        key = { hdr.h.a : ternary; }
        actions = { setb; NoAction; }
        entries = {
            priority = (10 + 5): 0x00 &&& 0x00 : setb(0xf0);
            priority = 3: 0x05 &&& 0xff : setb(0x05);
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        trip_t tr = { x = 8w1, ... };
        (hdr.h.c) = +tr.x + meta.t.x;
        two_outs(_, hdr.h.d);
        two_outs(first = _, second = _);
        t.apply();
        switch (hdr.h.a) {
            LABEL: { hdr.h.c = 0x77; }
            default: { }
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.x); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
