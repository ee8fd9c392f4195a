// Names the grammar lets through: fields called key, actions, state, entries, type,
// apply and priority; trailing commas in enum, error and expression lists; widths given
// by parenthesized constant expressions; top-level empty declarations; @pragma
// annotations; comment markers inside comments; new types as keys and action data.
#include <core.p4>
#include <v1model.p4>

;
const bit<32> W = 4;
enum Mode { M1, M2, }
error { TrailingErr }
@pragma dont_trim
@pragma my_pragma 1 2 "three"
header h_t {
    bit<8> key; bit<8> actions; bit<8> state; bit<8> entries;
    bit<(W + W)> type; bit<8> apply; bit<8> priority;
}
/* a block comment with // inside and a * star */
// a line comment with /* inside
type bit<9> PortId_t;
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(PortId_t port, bit<8> v) { sm.egress_spec = (bit<9>)port; hdr.h.apply = v; }
    table t {
        key = { hdr.h.key : exact; hdr.h.type : ternary; }
        actions = { fwd; NoAction; }
        const entries = {
            (1, 0x10 &&& 0xf0) : fwd((PortId_t)9w3, 0x31);
            (1, _) : fwd((PortId_t)2, 0x32);
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        hdr.h.actions = hdr.h.state + hdr.h.entries;
        tuple<bit<8>, bit<8>> tp = { hdr.h.key, hdr.h.priority, };
        hdr.h.priority = tp[0];
        t.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;;
