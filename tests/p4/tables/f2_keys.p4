// STF key naming as p4c's BMv2 driver resolves it: a key with @name, keys by full
// `hdr.x.y` text and by dotted suffix, an isValid() key written `hdr.x.valid`, table and
// action names qualified by the control, lpm values without /len (the prefix counts the
// digits written, the value is not shifted), ternary `*` nibbles and binary masks.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<16> w; bit<8> t; bit<8> o1; bit<8> o2; bit<8> o3; }
header opt_t { bit<8> v; }
struct headers { h_t h; opt_t opt; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.k) { 0xFF: parse_opt; default: accept; }
    }
    state parse_opt { pkt.extract(hdr.opt); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control ingress(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<8> v) { sm.egress_spec = port; hdr.h.o1 = v; }
    action drop() { mark_to_drop(sm); }
    action m2(bit<8> v) { hdr.h.o2 = v; }
    action m3(bit<8> v) { hdr.h.o3 = v; }
    table exact_t {
        key = { hdr.h.k : exact @name("kk"); }
        actions = { fwd; drop; }
        default_action = drop();
    }
    table lpm_t {
        key = { hdr.h.w : lpm; }
        actions = { m2; NoAction; }
        default_action = NoAction();
    }
    table tern_t {
        key = { hdr.h.t : ternary; hdr.opt.isValid() : exact; }
        actions = { m3; NoAction; }
        default_action = NoAction();
    }
    apply {
        exact_t.apply();
        lpm_t.apply();
        tern_t.apply();
    }
}
control egress(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.opt); } }
V1Switch(P(), VC(), ingress(), egress(), CC(), D()) main;
