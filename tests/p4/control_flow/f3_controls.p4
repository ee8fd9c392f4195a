// Controls: sub-controls with constructor parameters, direct type invocation
// (`Ctrl.apply(...)`), instances in control scope, table properties implementation /
// counters / meters / support_timeout, a custom property, tuple variables and list
// expressions, header-union validity.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
header u1_t { bit<8> x; }
header u2_t { bit<16> y; }
header_union u_t { u1_t one; u2_t two; }
struct headers { h_t h; u_t u; }
struct meta_t { }

control Adder(inout bit<8> v)(bit<8> amount) {
    apply { v = v + amount; }
}
control Twice(inout bit<8> v) {
    Adder(8w1) inc;
    apply { inc.apply(v); inc.apply(v); }
}
control Direct(inout bit<8> v) {
    apply { v = v ^ 0xF0; }
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) { 1: one; 2: two; default: accept; }
    }
    state one { pkt.extract(hdr.u.one); transition accept; }
    state two { pkt.extract(hdr.u.two); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Adder(8w0x10) add16;
    Twice() twice;
    direct_counter(CounterType.packets) dc;
    direct_meter<bit<2>>(MeterType.bytes) dm;
    action_profile(4) prof;
    action setc(bit<8> v) { hdr.h.c = v; dc.count(); }
    action nop() { dc.count(); }
    action setd(bit<8> v) { hdr.h.d = v; }
    action metered() { bit<2> col; dm.read(col); hdr.h.d = (bit<8>)col + 0x40; }
    table counted {
        key = { hdr.h.a : exact; }
        actions = { setc; nop; }
        counters = dc;
        support_timeout = true;
        default_action = nop();
    }
    table profiled {
        key = { hdr.h.a : exact; }
        actions = { setd; }
        implementation = prof;
    }
    table with_meter {
        key = { hdr.h.b : exact; }
        actions = { metered; NoAction; }
        meters = dm;
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        add16.apply(hdr.h.b);
        twice.apply(hdr.h.b);
        Direct.apply(hdr.h.b);
        counted.apply();
        profiled.apply();
        with_meter.apply();
        tuple<bit<8>, bit<8>> tp = { hdr.h.a, 8w7 };
        if (hdr.u.isValid()) {
            hdr.h.c = hdr.h.c + tp[1];
        }
        if (hdr.u.one.isValid()) { hdr.u.one.x = hdr.u.one.x + 1; }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.u); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
