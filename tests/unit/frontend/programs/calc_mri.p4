/* Calculator and path-tracing features (lookahead of a header, const entries,
   header stacks grown with push_front, parser loops with a counter). */
#include <core.p4>
#include <v1model.p4>

const bit<16> ETYPE_CALC = 0x1234;
const bit<8>  OP_ADD = 0x2b;
const bit<8>  OP_SUB = 0x2d;
const bit<8>  OP_AND = 0x26;
#define MAX_HOPS 3

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header calc_t { bit<8> p; bit<8> four; bit<8> ver; bit<8> op; bit<32> a; bit<32> b; bit<32> res; }
header count_t { bit<8> n; }
header trace_t { bit<32> swid; bit<16> qdepth; }

struct parser_meta_t { bit<8> remaining; }
struct metadata { parser_meta_t pm; bit<32> swid; }
struct headers {
    ethernet_t ethernet;
    calc_t calc;
    count_t count;
    trace_t[MAX_HOPS] traces;
}

parser CalcParser(packet_in packet, out headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            ETYPE_CALC: check_calc;
            0x5678: parse_count;
            default: accept;
        }
    }
    state check_calc {
        transition select(packet.lookahead<calc_t>().p, packet.lookahead<calc_t>().four,
                          packet.lookahead<calc_t>().ver) {
            (0x50, 0x34, 0x01): parse_calc;
            default: accept;
        }
    }
    state parse_calc { packet.extract(hdr.calc); transition accept; }
    state parse_count {
        packet.extract(hdr.count);
        meta.pm.remaining = hdr.count.n;
        transition select(meta.pm.remaining) {
            0: accept;
            default: parse_trace;
        }
    }
    state parse_trace {
        packet.extract(hdr.traces.next);
        meta.pm.remaining = meta.pm.remaining - 1;
        transition select(meta.pm.remaining) {
            0: accept;
            default: parse_trace;
        }
    }
}

control NoVerify(inout headers hdr, inout metadata meta) { apply { } }

control CalcIngress(inout headers hdr, inout metadata meta,
                    inout standard_metadata_t standard_metadata) {
    action send_back(bit<32> result) {
        bit<48> tmp;
        hdr.calc.res = result;
        tmp = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = hdr.ethernet.srcAddr;
        hdr.ethernet.srcAddr = tmp;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }
    action op_add() { send_back(hdr.calc.a + hdr.calc.b); }
    action op_sub() { send_back(hdr.calc.a - hdr.calc.b); }
    action op_and() { send_back(hdr.calc.a & hdr.calc.b); }
    action op_drop() { mark_to_drop(standard_metadata); }
    table calculate {
        key = { hdr.calc.op: exact; }
        actions = { op_add; op_sub; op_and; op_drop; }
        const default_action = op_drop();
        const entries = {
            OP_ADD: op_add();
            OP_SUB: op_sub();
            OP_AND: op_and();
        }
    }
    action set_swid(bit<32> id) { meta.swid = id; }
    table swid { actions = { set_swid; NoAction; } default_action = set_swid(7); }
    apply {
        if (hdr.calc.isValid()) {
            calculate.apply();
        } else if (hdr.count.isValid()) {
            standard_metadata.egress_spec = 2;
        } else {
            mark_to_drop(standard_metadata);
        }
    }
}

control CalcEgress(inout headers hdr, inout metadata meta,
                   inout standard_metadata_t standard_metadata) {
    action add_trace(bit<32> id) {
        hdr.count.n = hdr.count.n + 1;
        hdr.traces.push_front(1);
        hdr.traces[0].setValid();
        hdr.traces[0].swid = id;
        hdr.traces[0].qdepth = (bit<16>)standard_metadata.deq_qdepth;
    }
    apply {
        if (hdr.count.isValid()) { add_trace(42); }
    }
}

control NoCompute(inout headers hdr, inout metadata meta) { apply { } }

control CalcDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.calc);
        packet.emit(hdr.count);
        packet.emit(hdr.traces);
    }
}

V1Switch(CalcParser(), NoVerify(), CalcIngress(), CalcEgress(), NoCompute(), CalcDeparser()) main;
