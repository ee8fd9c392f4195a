// exit ends the ingress control (also from an action); return ends the block; egress still runs.
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

    action a_exit() {
        hdr.h.c = 0xaaaa;
        exit;
    }
    table t {
        key = { hdr.h.a: exact; }
        actions = { a_exit; NoAction; }
        const entries = {
            4: a_exit();
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        hdr.h.b = 1;
        t.apply();
        if (hdr.h.a == 1) {
            exit;
        }
        hdr.h.b = 2;
        if (hdr.h.a == 2) {
            hdr.h.b = 3;
            return;
        }
        hdr.h.c = 0x0c0c;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        hdr.h.a = hdr.h.a + 0x10;
    }
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
