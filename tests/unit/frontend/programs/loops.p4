/* for loops (three-clause and for-in), break/continue, compound assignment. */
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> c; }
struct metadata { }
struct headers { h_t h; h_t[3] s; }
parser p(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); pk.extract(hdr.s.next); pk.extract(hdr.s.next); pk.extract(hdr.s.next); transition accept; }
}
control vc(inout headers hdr, inout metadata meta) { apply {} }
control ig(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        bit<8> sum = 0;
        for (bit<8> i = 0; i < hdr.h.a; i = i + 1) {
            if (i == 2) { continue; }
            if (i == 6) { break; }
            sum += i;
            sum >>= 0;
        }
        hdr.h.b = sum;
        bit<8> acc = 0;
        for (h_t x in hdr.s) { acc = acc + x.a; }
        for (bit<8> k in 1 .. 3) { acc |= k << 4; }
        hdr.h.c = acc;
        sm.egress_spec = 1;
    }
}
control eg(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply {} }
control ck(inout headers hdr, inout metadata meta) { apply {} }
control dp(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(p(), vc(), ig(), eg(), ck(), dp()) main;
