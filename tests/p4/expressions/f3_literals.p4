// Numeric literals in every base with width prefixes and underscores, signed widths,
// every cast form, minSizeInBits/minSizeInBytes, log_msg with escapes, comments and
// line continuations in odd places.
#include <core.p4>
#include <v1model.p4>

#define TWO_LINE_MACRO(x) \
    ((x) + \
     8w1)
#define ADD(a, b) ((a) + (b))
#define STR_PORT 9w1

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<16> e; bit<8> f; bit<8> g; bit<8> i; bit<8> j; }
struct headers { h_t h; }
struct meta_t { }
type bit<8> Wrapped_t;

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = /* inline comment */ STR_PORT;
        hdr.h.a = 8w0b1010_0101;                 // binary with underscore
        hdr.h.b = 8w0o17 + 8w0O1;                // octal (0o / 0O)
        hdr.h.c = 8w0xF_f ^ 8w0X0f;              // hex, both cases
        hdr.h.d = (bit<8>)8s0x7F + (bit<8>)(-8s1); // signed width prefix
        hdr.h.e = 16w1_000 + 0d10 + 16w0D5;      // decimal with 0d prefix
        hdr.h.f = TWO_LINE_MACRO(ADD(8w2, 8w3));
        int<8> si = -3;
        hdr.h.g = (bit<8>)((int<8>)si >> 1);     // arithmetic shift of a signed value
        Wrapped_t w = (Wrapped_t)hdr.h.a;
        hdr.h.i = (bit<8>)w + (bit<8>)h_t.minSizeInBytes() + (bit<8>)hdr.h.minSizeInBits();
        bool flag = (bool)1w1;
        hdr.h.j = (bit<8>)(bit<1>)flag + (bit<8>)16w0x1234 + (bit<8>)(bit<16>)(-16s2);
        log_msg("tab\tquote\" backslash\\ value={}", {hdr.h.a});
        log_msg("no args");
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
