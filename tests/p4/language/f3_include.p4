// #include of a user header (twice, guarded), function-like macros, #if/#elif/#else,
// #ifdef/#ifndef/#undef, macros used in types and expressions, extern function
// declarations of v1model used with named arguments, the macros p4c-bm2-ss predefines.
#include <core.p4>
#include "f3_common.h"
#include "f3_common.h"
#include <v1model.p4>

#define WIDTH 8
#undef WIDTH
#define WIDTH 16
#ifdef WIDTH
typedef bit<WIDTH> wide_t;
#endif
#ifndef NOT_DEFINED
#define MODE 2
#endif
#if !defined(__TARGET_BMV2__) || __p4c__ != 1 || __p4c_major__ < 1
#error "p4c-bm2-ss predefines __TARGET_BMV2__ and the __p4c__ version macros"
#endif
#if MODE == 1
#error "mode 1 not expected"
#elif MODE == 2
#define MODE_VALUE 8w0x22
#else
#define MODE_VALUE 8w0x33
#endif

struct headers { h_t h; }
struct meta_t { wide_t w; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr = hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = OUT_PORT;
        SET_FIELD(hdr.h, b, MODE_VALUE);
        meta.w = (wide_t)hdr.h.a;
        hash(result = meta.w, algo = HashAlgorithm.identity, base = 16w0,
             data = { hdr.h.a }, max = 32w65536);
        hdr.h.c = (bit<8>)meta.w + PORT_OK;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr = hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
