// Table properties given by inline constructor calls: implementation =
// action_profile(...), counters = direct_counter(...), plus an empty key list and
// global actions with an inout parameter bound in the actions list.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers { h_t h; }
struct meta_t { }

action bump(inout h_t x) { x.b = x.b + 1; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action seta(bit<8> v) { hdr.h.a = v; }
    table prof {
        key = { hdr.h.a : exact; }
        actions = { seta; NoAction; }
        implementation = action_profile(32w16);
        default_action = NoAction();
    }
    table counted {
        key = { }
        actions = { bump(hdr.h); }
        counters = direct_counter(CounterType.packets);
        default_action = bump(hdr.h);
    }
    apply {
        sm.egress_spec = 1;
        prof.apply();
        counted.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
