// Commands the switch refuses while the STF run goes on (simple_switch_CLI prints an
// error, p4c's driver carries on): a duplicate exact key (the first entry stays), an add
// past `size`, setdefault on a const default action, adds to tables with const or plain
// initial `entries` (BMv2 locks any table loaded with entries), a key or action argument
// too wide for its field, and a register index past the end.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> r1; bit<8> r2; bit<8> r3; bit<8> r4; bit<8> r5; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) reg;
    action s1(bit<8> v) { hdr.h.r1 = v; }
    action s2(bit<8> v) { hdr.h.r2 = v; }
    action s3(bit<8> v) { hdr.h.r3 = v; }
    action s4(bit<8> v) { hdr.h.r4 = v; }
    table small {
        key = { hdr.h.k : exact; }
        actions = { s1; NoAction; }
        size = 2;
        default_action = NoAction();
    }
    table fixed_default {
        key = { hdr.h.k : exact; }
        actions = { s2; }
        const default_action = s2(0xD2);
    }
    table with_const {
        key = { hdr.h.k : exact; }
        actions = { s3; NoAction; }
        const entries = { 1 : s3(0xC1); }
        default_action = NoAction();
    }
    table with_initial {
        key = { hdr.h.k : ternary; }
        actions = { s4; NoAction; }
        entries = { 0x02 &&& 0xFF : s4(0xE2); }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        small.apply();
        fixed_default.apply();
        with_const.apply();
        with_initial.apply();
        reg.read(hdr.h.r5, 3);
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
