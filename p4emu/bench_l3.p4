// The benchmark router: three lookups per packet (lpm route -> exact next hop -> exact
// source MAC per egress port), TTL decrement.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct meta_t {
    bit<16> nhop;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() {
        mark_to_drop(sm);
    }
    action set_nhop(bit<16> nhop) {
        meta.nhop = nhop;
    }
    action forward(bit<48> dmac, bit<9> port) {
        hdr.ethernet.dstAddr = dmac;
        sm.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    table ipv4_lpm {
        key = { hdr.ipv4.dstAddr: lpm; }
        actions = { set_nhop; drop; }
        size = 16384;
        default_action = drop();
    }
    table nexthop {
        key = { meta.nhop: exact; }
        actions = { forward; drop; }
        size = 1024;
        default_action = drop();
    }
    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            if (ipv4_lpm.apply().hit) {
                nexthop.apply();
            }
        } else {
            drop();
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_smac(bit<48> smac) {
        hdr.ethernet.srcAddr = smac;
    }
    table smac {
        key = { sm.egress_port: exact; }
        actions = { set_smac; NoAction; }
        size = 512;
        default_action = NoAction();
    }
    apply {
        smac.apply();
    }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
