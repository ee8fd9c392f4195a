// A serializable enum as a header field, select key and exact table key (STF gives the
// number); switch on parser_error with error labels and default; minSizeInBytes() of a
// header and minSizeInBits() of a header holding only a varbit.
#include <core.p4>
#include <v1model.p4>
enum bit<8> Kind { A = 1, B = 2 }
header h_t { Kind k; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; }
header v_t { varbit<16> d; }
struct headers { h_t h; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition select(hdr.h.k) { Kind.B: more; default: accept; } }
    state more { pkt.extract(hdr.v, 16); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action s(bit<8> v) { hdr.h.r1 = v; }
    table t { key = { hdr.h.k : exact; } actions = { s; NoAction; } default_action = NoAction(); }
    apply {
        sm.egress_spec = 1;
        t.apply();
        switch (sm.parser_error) {
            error.NoError: { hdr.h.r2 = 0x10; }
            error.PacketTooShort: { hdr.h.r2 = 0x11; }
            default: { hdr.h.r2 = 0x1F; }
        }
        hdr.h.r3 = (bit<8>)hdr.h.minSizeInBytes();
        hdr.h.r4 = (bit<8>)hdr.v.minSizeInBits();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
