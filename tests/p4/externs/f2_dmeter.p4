// A direct meter read by only one of the table's actions: p4c makes the read target the
// meter's "result_target", which BMv2 writes on every hit (here GREEN = 0) whatever the
// action, and leaves alone on a miss.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> k; bit<8> c; bit<8> r; }
struct headers { h_t h; }
struct meta_t { bit<8> color; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_meter<bit<8>>(MeterType.packets) dm;
    action a1() { dm.read(meta.color); hdr.h.r = 1; }
    action a2() { hdr.h.r = 2; }
    table t { key = { hdr.h.k : exact; } actions = { a1; a2; NoAction; } default_action = NoAction(); meters = dm; }
    apply {
        sm.egress_spec = 1;
        meta.color = 0xFF;
        t.apply();
        hdr.h.c = meta.color;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
