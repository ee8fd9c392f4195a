// Stateful externs at their edges: random with lo == hi, register reads/writes and counter
// updates with an index past the end (BMv2 logs, leaves state and the read destination
// alone), a register the STF writes through the CLI, and a direct counter that counts
// table hits only (a miss runs the default action uncounted).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> idx; bit<8> val; bit<8> r1; bit<8> r2; bit<8> r3; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(4) reg;
    register<bit<8>>(8) cfg;
    counter(4, CounterType.packets) cnt;
    direct_counter(CounterType.packets_and_bytes) dc;
    action hit() { dc.count(); hdr.h.r3 = 0x11; }
    action miss() { dc.count(); hdr.h.r3 = 0x22; }
    table t {
        key = { hdr.h.val : exact; }
        actions = { hit; miss; }
        default_action = miss();
        counters = dc;
    }
    apply {
        sm.egress_spec = 1;
        random(hdr.h.r1, 8w7, 8w7);
        reg.read(hdr.h.r2, (bit<32>)hdr.h.idx);
        reg.write((bit<32>)hdr.h.idx, hdr.h.val);
        cnt.count((bit<32>)hdr.h.idx);
        if (hdr.h.idx == 0xC0) {
            cfg.read(hdr.h.r2, 5);
        }
        t.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
