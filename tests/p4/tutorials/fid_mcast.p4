// Multicast (tutorials' "multicast" style): the group comes from a table keyed by the
// ingress port; copies carry egress_rid; egress prunes the copy back to the ingress port
// and rewrites per rid; two nodes may hit the same port (order = node order). Parser error
// paths: varbit and advance lengths that are not whole bytes.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header info_t {
    bit<8> rid;
    bit<8> port;
    bit<8> err;
    bit<8> len;
}

header var_t {
    varbit<64> data;
}

struct headers {
    ethernet_t ethernet;
    info_t     info;
    var_t      var;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x9001: odd_varbit;
            0x9002: odd_advance;
            default: info;
        }
    }
    state odd_varbit {
        pkt.extract(hdr.var, 12);
        transition info;
    }
    state odd_advance {
        pkt.advance(4);
        transition info;
    }
    state info {
        pkt.extract(hdr.info);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action multicast(bit<16> grp) {
        sm.mcast_grp = grp;
    }
    action to_port(bit<9> port) {
        sm.egress_spec = port;
    }
    table mac_lookup {
        key = {
            hdr.ethernet.dstAddr : exact;
            sm.ingress_port      : ternary;
        }
        actions = { multicast; to_port; NoAction; }
        default_action = multicast(1);
    }
    apply {
        if (sm.parser_error != error.NoError) {
            sm.egress_spec = 15;
            exit;
        }
        mac_lookup.apply();
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_src(bit<48> mac) {
        hdr.ethernet.srcAddr = mac;
    }
    table rid_rewrite {
        key = { sm.egress_rid : exact; }
        actions = { set_src; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (sm.egress_port == sm.ingress_port) {
            mark_to_drop(sm);
        } else {
            rid_rewrite.apply();
            if (!hdr.info.isValid()) {
                hdr.info.setValid();
                hdr.info.err = sm.parser_error == error.ParserInvalidArgument ? 8w6 : 8w0xEE;
            }
            hdr.info.rid = (bit<8>)sm.egress_rid;
            hdr.info.port = (bit<8>)sm.egress_port;
            hdr.info.len = (bit<8>)sm.packet_length;
        }
    }
}

control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.info);
        pkt.emit(hdr.var);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
