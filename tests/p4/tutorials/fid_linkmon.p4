// Link monitoring (tutorials' "link_monitor" style): probes carry a hop count, a stack of
// per-hop records pushed in egress and a stack of forwarding ports; egress accumulates
// bytes per port in a register and reports/reset them in probe records. The forwarding
// port is read with a run-time index into the header stack.
#include <core.p4>
#include <v1model.p4>

#define MAX_HOPS 4
#define MAX_PORTS 8

const bit<16> TYPE_IPV4  = 0x800;
const bit<16> TYPE_PROBE = 0x812;

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header probe_t {
    bit<8> hop_cnt;
}

header probe_data_t {
    bit<1>  bos;
    bit<7>  swid;
    bit<8>  port;
    bit<32> byte_cnt;
}

header probe_fwd_t {
    bit<8> egress_spec;
}

struct parser_metadata_t {
    bit<8> remaining;
}

struct metadata {
    bit<8>            egress_spec;
    parser_metadata_t parser_metadata;
}

struct headers {
    ethernet_t              ethernet;
    probe_t                 probe;
    probe_data_t[MAX_HOPS]  probe_data;
    probe_fwd_t[MAX_HOPS]   probe_fwd;
}

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_PROBE: parse_probe;
            default: accept;
        }
    }
    state parse_probe {
        packet.extract(hdr.probe);
        meta.parser_metadata.remaining = hdr.probe.hop_cnt + 1;
        transition select(hdr.probe.hop_cnt) {
            0: parse_probe_fwd;
            default: parse_probe_data;
        }
    }
    state parse_probe_data {
        packet.extract(hdr.probe_data.next);
        transition select(hdr.probe_data.last.bos) {
            1: parse_probe_fwd;
            default: parse_probe_data;
        }
    }
    state parse_probe_fwd {
        packet.extract(hdr.probe_fwd.next);
        meta.parser_metadata.remaining = meta.parser_metadata.remaining - 1;
        meta.egress_spec = hdr.probe_fwd.last.egress_spec;
        transition select(meta.parser_metadata.remaining) {
            0: accept;
            default: parse_probe_fwd;
        }
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    action drop() {
        mark_to_drop(standard_metadata);
    }
    action forward(bit<9> port) {
        standard_metadata.egress_spec = port;
    }
    table l2 {
        key = { hdr.ethernet.dstAddr: exact; }
        actions = { forward; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.probe.isValid()) {
            // the port for this hop, by run-time index, must agree with the parser's
            bit<8> by_index = hdr.probe_fwd[hdr.probe.hop_cnt].egress_spec;
            if (by_index == meta.egress_spec) {
                standard_metadata.egress_spec = (bit<9>)by_index;
            } else {
                standard_metadata.egress_spec = 15;
            }
            hdr.probe.hop_cnt = hdr.probe.hop_cnt + 1;
        } else {
            l2.apply();
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    register<bit<32>>(MAX_PORTS) byte_cnt_reg;

    action set_swid(bit<7> swid) {
        hdr.probe_data[0].swid = swid;
    }
    table swid {
        actions = { set_swid; NoAction; }
        default_action = NoAction();
    }
    apply {
        bit<32> byte_cnt;
        bit<32> new_byte_cnt;
        byte_cnt_reg.read(byte_cnt, (bit<32>)standard_metadata.egress_port);
        byte_cnt = byte_cnt + standard_metadata.packet_length;
        new_byte_cnt = hdr.probe.isValid() ? 32w0 : byte_cnt;
        byte_cnt_reg.write((bit<32>)standard_metadata.egress_port, new_byte_cnt);

        if (hdr.probe.isValid()) {
            hdr.probe_data.push_front(1);
            hdr.probe_data[0].setValid();
            if (hdr.probe.hop_cnt == 1) {
                hdr.probe_data[0].bos = 1;
            } else {
                hdr.probe_data[0].bos = 0;
            }
            swid.apply();
            hdr.probe_data[0].port = (bit<8>)standard_metadata.egress_port;
            hdr.probe_data[0].byte_cnt = byte_cnt;
        }
    }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.probe);
        packet.emit(hdr.probe_data);
        packet.emit(hdr.probe_fwd);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
