// Named arguments to actions in default_action and entries, serializable-enum table
// keys and action parameters, header stacks sized by a constant and indexed at run
// time, @atomic blocks, ternary selecting booleans.
#include <core.p4>
#include <v1model.p4>

const bit<32> N = 3;
enum bit<8> Kind_t { K1 = 1, K2 = 2 }
header h_t { Kind_t kind; bit<8> idx; bit<8> r; }
header e_t { bit<8> v; }
struct headers { h_t h; e_t[N] es; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.es.next); pkt.extract(hdr.es.next); pkt.extract(hdr.es.next); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> val, Kind_t k) { hdr.h.r = val; hdr.h.kind = k; }
    table t {
        key = { hdr.h.kind : exact; }
        actions = { set; }
        const entries = {
            Kind_t.K1 : set(k = Kind_t.K2, val = 0x11);
            Kind_t.K2 : set(val = 0x22, k = Kind_t.K1);
        }
        default_action = set(k = Kind_t.K1, val = 0xdd);
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
        @atomic {
            bool big = hdr.h.idx > 1 ? true : false;
            if (!big) { hdr.es[hdr.h.idx].v = hdr.es[hdr.h.idx].v + 1; }
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
