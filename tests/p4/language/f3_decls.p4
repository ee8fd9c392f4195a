// Declaration kinds: error and match_kind extensions, enums with and without an
// underlying type, `type`, typedefs of headers/structs/stacks, consts of struct,
// tuple and header type built with `{...}`, named-field initializers and `{#}`.
#include <core.p4>
#include <v1model.p4>

error { MyError, OtherError }
match_kind { my_unused_kind }

enum Colour { Red, Green, Blue }
enum bit<8> Op { ADD = 1, SUB = 2, XOR = 8w3 }
enum int<8> Signed { NEG = -1, POS = 1 }
type bit<8> Tag_t;
typedef bit<8> Byte;

header h_t { Byte a; Byte b; Byte c; Byte d; }
typedef h_t HAlias;
header small_t { bit<8> x; }
typedef small_t[2] SmallStack;
struct pair_t { bit<8> lo; bit<8> hi; }
typedef pair_t PairAlias;
struct nest_t { pair_t p; bit<4> n; bit<4> m; }
struct headers { HAlias h; SmallStack s; }
struct meta_t { Colour c; Op o; Tag_t tag; }

const PairAlias KPAIR = { 8w5, 8w6 };
const pair_t KNAMED = { hi = 8w0x20, lo = 8w0x10 };
const nest_t KNEST = { { 1, 2 }, 3, 4 };
const nest_t KNEST2 = { p = { lo = 7, hi = 8 }, n = 9, m = 10 };
const tuple<bit<8>, bool> KTUP = { 8w0x42, true };
const small_t KHDR = { 8w0x77 };
const small_t KINVALID = {#};
const Op KOP = Op.SUB;
const Tag_t KTAG = (Tag_t)8w0x5a;
const bit<8> KEXPR = KPAIR.lo + KNAMED.hi;

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.o = (Op)hdr.h.a;
        meta.tag = KTAG;
        meta.c = Colour.Green;
        if (meta.o == Op.ADD) {
            hdr.h.b = hdr.h.b + KPAIR.hi;
        } else if (meta.o == KOP) {
            hdr.h.b = hdr.h.b - KNAMED.lo;
        } else if (meta.o == Op.XOR) {
            hdr.h.b = hdr.h.b ^ KTUP[0];
        } else {
            hdr.h.b = (bit<8>)Signed.NEG;
        }
        hdr.h.c = KEXPR + (bit<8>)KNEST.n + (bit<8>)KNEST2.m + KNEST2.p.hi;
        hdr.s[0] = KHDR;
        hdr.s[1] = KINVALID;
        if (KTUP[1] && !KINVALID.isValid() && hdr.s[0].isValid() && meta.c != Colour.Red) {
            hdr.h.d = (bit<8>)meta.tag;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.s); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
