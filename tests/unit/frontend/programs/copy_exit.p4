/* Copy-in/copy-out around exit, as p4c lowers it for BMv2. */
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> x; bit<8> y; }
struct metadata { bit<8> m; }
struct headers { h_t h; h_t k; }
parser p(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); pk.extract(hdr.k); transition accept; }
}
control vc(inout headers hdr, inout metadata meta) { apply {} }
control Bump(inout h_t t, inout bit<8> n, in bit<8> op) {
    apply { t.y = t.y + 1; n = n + 1; if (op == 1) { exit; } n = n + 0x10; }
}
control Once(inout bit<8> n, in bit<8> op) {
    apply { n = n + 1; if (op == 2) { exit; } }
}
control ig(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    Bump() bump;
    Once() once;
    action leave(inout bit<8> v) { v = 0x77; exit; }
    action mix(in h_t a, inout h_t b) { b.x = a.x + 1; b.y = a.x; }
    apply {
        sm.egress_spec = 1;
        meta.m = 0x40;
        if (hdr.h.op == 3) { leave(meta.m); }
        if (hdr.h.op == 4) { mix(hdr.k, hdr.k); return; }
        once.apply(meta.m, hdr.h.op);
        bump.apply(hdr.k, meta.m, hdr.h.op);
        bump.apply(hdr.h, meta.m, 0);
    }
}
control eg(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply { hdr.h.x = meta.m; }
}
control ck(inout headers hdr, inout metadata meta) { apply {} }
control dp(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(p(), vc(), ig(), eg(), ck(), dp()) main;
