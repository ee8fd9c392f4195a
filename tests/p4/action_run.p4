// switch on table.apply().action_run, with a default branch.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    action a1() {
        hdr.h.c = 0x0101;
    }
    action a2() {
        hdr.h.c = 0x0202;
    }
    table t {
        key = { hdr.h.a: exact; }
        actions = { a1; a2; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        switch (t.apply().action_run) {
            a1: { hdr.h.b = 1; }
            a2: { hdr.h.b = 2; }
            default: { hdr.h.b = 0xff; }
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
