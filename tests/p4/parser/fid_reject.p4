// Parser rejects as p4c lowers them for BMv2: an explicit `transition reject` becomes accept
// with parser_error NoError, and a select without a matching case or default accepts.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> e; }
header g_t { bit<8> b; }
struct headers { h_t h; g_t g; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            1: reject;
            2: more;
            3: more;
        }
    }
    state more {
        pkt.extract(hdr.g);
        transition select(hdr.h.a) { 3: reject; default: accept; }
    }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.e = sm.parser_error == error.NoError ? 8w0 : (sm.parser_error == error.NoMatch ? 8w2 : 8w0xEE);
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.g); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
