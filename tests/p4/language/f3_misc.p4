// static_assert as a constant initializer and as a statement, casts
// between serializable enums / new types / bool / bit<1>, error-typed locals, struct
// and header equality, header-to-header copies, struct initializers holding headers.
#include <core.p4>
#include <v1model.p4>

const bool VERSION_OK = static_assert(V1MODEL_VERSION >= 20180101, "v1model too old");
const bool ALSO_OK = static_assert(true);
enum bit<8> Proto { TCP = 6, UDP = 17 }
type bit<8> Id_t;
header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
header g_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct pair_t { bit<8> x; bit<8> y; }
struct wrap_t { g_t g; pair_t p; }
struct headers { h_t h; g_t g; }
struct meta_t { wrap_t w; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        static_assert(VERSION_OK && ALSO_OK);
        sm.egress_spec = 1;
        Proto pr = (Proto)hdr.h.a;
        Id_t id = (Id_t)(bit<8>)pr;
        bit<1> one = (bit<1>)(pr == Proto.UDP);
        bool yes = (bool)one;
        error err = error.NoError;
        if (yes && err == error.NoError) { hdr.h.b = (bit<8>)id + 1; }
        meta.w = { g = { 1, 2, 3, 4 }, p = { x = 5, y = 6 } };
        hdr.g = meta.w.g;
        pair_t q = { 5, 6 };
        if (meta.w.p == q && hdr.g == meta.w.g && hdr.g.isValid()) { hdr.h.c = 0xcc; }
        if (meta.w.p != { 5, 7 }) { hdr.h.d = 0xdd; }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.g); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
