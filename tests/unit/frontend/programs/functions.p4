/* Functions and actions with directional parameters: `out` results,
   header `out` parameters start invalid, slices as inout arguments, generic functions. */
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct metadata { }
struct headers { h_t h; h_t g; h_t k; }
void f(in h_t x, out bit<8> r) { r = x.a + 1; }
bit<8> g(inout bit<4> v, in bit<4> by) { v = v + by; return (bit<8>)v + 100; }
void reset(out h_t x) { }
T max<T>(in T x, in T y) { return x > y ? x : y; }
parser p(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); pk.extract(hdr.g); pk.extract(hdr.k); transition accept; }
}
control vc(inout headers hdr, inout metadata meta) { apply {} }
control ig(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    action twice(inout bit<8> v) { v = v + v; }
    apply {
        f(hdr.h, hdr.g.a);
        hdr.g.b = g(hdr.h.b[3:0], 1);
        twice(hdr.h.a);
        reset(hdr.k);
        hdr.g.b = max(hdr.g.b, 8w150);
        sm.egress_spec = 1;
    }
}
control eg(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply {} }
control ck(inout headers hdr, inout metadata meta) { apply {} }
control dp(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(p(), vc(), ig(), eg(), ck(), dp()) main;
