// P4Info naming and ids (p4c control-plane/p4RuntimeSymbolTable.cpp): tutorial names,
// directly called actions, direct counters/meters, registers, meters, an action selector,
// controller headers, digests, a value set, @id and @name overrides, aliases that must be
// unique across all kinds of objects.
#include <core.p4>
#include <v1model.p4>

typedef bit<9>  egressSpec_t;
typedef bit<48> macAddr_t;
typedef bit<32> ip4Addr_t;

@controller_header("packet_in")
header packet_in_header_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_header_t {
    bit<9>  egress_port;
    bit<16> mcast_grp;
    bit<7>  _pad;
}

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header ipv4_t {
    bit<4>    version;
    bit<4>    ihl;
    bit<8>    diffserv;
    bit<16>   totalLen;
    bit<16>   identification;
    bit<3>    flags;
    bit<13>   fragOffset;
    bit<8>    ttl;
    bit<8>    protocol;
    bit<16>   hdrChecksum;
    ip4Addr_t srcAddr;
    ip4Addr_t dstAddr;
}

struct mac_learn_digest_t {
    macAddr_t srcAddr;
    bit<9>    ingress_port;
}

struct metadata {
    bit<14> ecmp_select;
}

struct headers {
    packet_out_header_t packet_out;
    packet_in_header_t  packet_in;
    ethernet_t          ethernet;
    ipv4_t              ipv4;
}

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    value_set<bit<16>>(4) type_vs;
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            type_vs: parse_ipv4;
            0x800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    direct_counter(CounterType.packets_and_bytes) acl_counter;
    direct_meter<bit<8>>(MeterType.bytes) lpm_meter;
    meter(32w16, MeterType.packets) port_meter;
    counter(32w8, CounterType.packets) fwd;
    action_selector(HashAlgorithm.crc16, 32w64, 32w14) ecmp_selector;
    bit<8> color;

    action drop() {
        mark_to_drop(standard_metadata);
    }
    action ipv4_forward(macAddr_t dstAddr, egressSpec_t port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        lpm_meter.read(color);
    }
    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm;
        }
        actions = {
            ipv4_forward;
            drop;
            NoAction;
        }
        size = 1024;
        default_action = drop();
        meters = lpm_meter;
    }
    @name("acl_permit") action permit() {
        acl_counter.count();
    }
    @name(".global_deny") action deny() {
        acl_counter.count();
        mark_to_drop(standard_metadata);
    }
    @id(0x200abcd)
    table acl {
        key = {
            hdr.ipv4.srcAddr     : ternary @name("src");
            hdr.ipv4.isValid()   : exact;
            hdr.ipv4.dstAddr[31:16] : ternary;
        }
        actions = {
            permit;
            deny;
        }
        counters = acl_counter;
        size = 64;
    }
    action set_nhop(macAddr_t nhop_dmac, egressSpec_t port) {
        hdr.ethernet.dstAddr = nhop_dmac;
        standard_metadata.egress_spec = port;
    }
    table ecmp {
        key = {
            hdr.ipv4.dstAddr: exact;
            hdr.ipv4.srcAddr: selector;
            hdr.ipv4.protocol: selector;
        }
        actions = {
            set_nhop;
        }
        implementation = ecmp_selector;
    }
    action learn() {
        digest<mac_learn_digest_t>(1, { hdr.ethernet.srcAddr, standard_metadata.ingress_port });
    }
    action only_direct() {
        hdr.ethernet.etherType = 0x9999;
    }
    apply {
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            acl.apply();
            ecmp.apply();
        }
        learn();
        port_meter.execute_meter((bit<32>)standard_metadata.ingress_port, color);
        fwd.count(0);
        if (hdr.ethernet.etherType == 0x1111) {
            only_direct();
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    register<bit<32>>(16) byte_cnt_reg;
    action fwd(bit<48> smac) {
        hdr.ethernet.srcAddr = smac;
    }
    table send_frame {
        key = {
            standard_metadata.egress_port: exact;
        }
        actions = {
            fwd;
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        send_frame.apply();
        byte_cnt_reg.write(0, standard_metadata.packet_length);
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
