// Initial table entries as p4c's BMv2 back end writes them: the JSON priority is the
// @priority annotation or else the entry's position (BMv2: smaller wins), so `priority = n:`
// values (P4 1.2.4, with largest_priority_wins / priority_delta) do not reorder anything;
// per-entry `const`; and a table loaded with plain `entries` refuses STF adds. (p4c's
// EntryPriorities still checks the values: with largest_priority_wins each next priority
// is this one minus priority_delta, which must not go below 0.)
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> r1; bit<8> r2; bit<8> r3; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action s1(bit<8> v) { hdr.h.r1 = v; }
    action s2(bit<8> v) { hdr.h.r2 = v; }
    action s3(bit<8> v) { hdr.h.r3 = v; }
    table by_position {
        key = { hdr.h.k : ternary; }
        actions = { s1; NoAction; }
        largest_priority_wins = true;
        priority_delta = 10;
        entries = {
            const priority = 50: 0x01 &&& 0x0F : s1(0x11);
                  priority = 90: 0x11 &&& 0xFF : s1(0x12);
            const priority = 30: 0x10 &&& 0xF0 : s1(0x13);
        }
        default_action = NoAction();
    }
    table by_annotation {
        key = { hdr.h.k : ternary; }
        actions = { s2; NoAction; }
        const entries = {
            @priority(30) 0x01 &&& 0x0F : s2(0x21);
            @priority(20) 0x11 &&& 0xFF : s2(0x22);
            @priority(10) 0x10 &&& 0xF0 : s2(0x23);
        }
        default_action = NoAction();
    }
    table plain {
        key = { hdr.h.k : exact; }
        actions = { s3; NoAction; }
        entries = { 0x22 : s3(0x31); }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        by_position.apply();
        by_annotation.apply();
        plain.apply();
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
