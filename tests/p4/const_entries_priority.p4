// Const entries: first listed wins; with @priority the smaller number wins on BMv2.
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

    action set_b(bit<8> v) {
        hdr.h.b = v;
    }
    action fwd(bit<9> port) {
        sm.egress_spec = port;
    }
    table t_order {
        key = { hdr.h.a: ternary; }
        actions = { set_b; NoAction; }
        const entries = {
            8w0x10 &&& 8w0xf0: set_b(1);
            8w0x12 &&& 8w0xff: set_b(2);
        }
        default_action = NoAction();
    }
    table t_prio {
        key = { hdr.h.a: ternary; }
        actions = { fwd; }
        const entries = {
            @priority(20) 8w0x10 &&& 8w0xf0: fwd(1);
            @priority(10) 8w0x12 &&& 8w0xff: fwd(2);
        }
        default_action = fwd(3);
    }
    apply {
        t_order.apply();
        t_prio.apply();
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
