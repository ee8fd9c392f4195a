// Generic structs and headers (P4 1.2.2): specialized with different type arguments,
// nested, used in headers, metadata, locals, functions and struct initializers.
#include <core.p4>
#include <v1model.p4>

header gh_t<T> { T v; bit<8> tag; }
struct pair_t<A, B> { A first; B second; }
struct box_t<T> { pair_t<T, bit<8>> p; }
struct headers { gh_t<bit<16>> h16; gh_t<bit<8>> h8; }
struct meta_t { box_t<bit<4>> b; }

bit<8> sum<T>(in pair_t<T, bit<8>> p) { return (bit<8>)p.first + p.second; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h16); pkt.extract(hdr.h8); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        pair_t<bit<8>, bit<8>> q = { first = hdr.h8.v, second = hdr.h8.tag };
        meta.b = { p = { first = 4w3, second = 8w0x10 } };
        hdr.h8.v = sum(q);
        hdr.h8.tag = sum<bit<4>>(meta.b.p);
        hdr.h16.v = hdr.h16.v + (bit<16>)q.first;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
