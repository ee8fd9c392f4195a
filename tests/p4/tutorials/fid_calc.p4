// A calculator protocol over Ethernet (tutorials' "calc" style): lookahead-based select on
// the magic bytes, an operation table with const entries, swap of MAC addresses,
// reflect to the ingress port; saturating and signed ops in extra opcodes.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dstAddr;
    bit<48> srcAddr;
    bit<16> etherType;
}

header p4calc_t {
    bit<8>  p;
    bit<8>  four;
    bit<8>  ver;
    bit<8>  op;
    bit<32> operand_a;
    bit<32> operand_b;
    bit<32> res;
}

struct headers {
    ethernet_t ethernet;
    p4calc_t   p4calc;
}

struct metadata { }

const bit<16> P4CALC_ETYPE = 0x1234;
const bit<8>  P4CALC_P     = 0x50;   // 'P'
const bit<8>  P4CALC_4     = 0x34;   // '4'
const bit<8>  P4CALC_VER   = 0x01;
const bit<8>  P4CALC_PLUS  = 0x2b;   // '+'
const bit<8>  P4CALC_MINUS = 0x2d;   // '-'
const bit<8>  P4CALC_AND   = 0x26;   // '&'
const bit<8>  P4CALC_OR    = 0x7c;   // '|'
const bit<8>  P4CALC_CARET = 0x5e;   // '^'

parser MyParser(packet_in packet, out headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            P4CALC_ETYPE : check_p4calc;
            default      : accept;
        }
    }
    state check_p4calc {
        transition select(packet.lookahead<p4calc_t>().p,
                          packet.lookahead<p4calc_t>().four,
                          packet.lookahead<p4calc_t>().ver) {
            (P4CALC_P, P4CALC_4, P4CALC_VER) : parse_p4calc;
            default                          : accept;
        }
    }
    state parse_p4calc {
        packet.extract(hdr.p4calc);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t standard_metadata) {
    action send_back(bit<32> result) {
        bit<48> tmp;
        hdr.p4calc.res = result;
        tmp = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = hdr.ethernet.srcAddr;
        hdr.ethernet.srcAddr = tmp;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }
    action operation_add() { send_back(hdr.p4calc.operand_a + hdr.p4calc.operand_b); }
    action operation_sub() { send_back(hdr.p4calc.operand_a - hdr.p4calc.operand_b); }
    action operation_and() { send_back(hdr.p4calc.operand_a & hdr.p4calc.operand_b); }
    action operation_or()  { send_back(hdr.p4calc.operand_a | hdr.p4calc.operand_b); }
    action operation_xor() { send_back(hdr.p4calc.operand_a ^ hdr.p4calc.operand_b); }
    action operation_sat_add() { send_back(hdr.p4calc.operand_a |+| hdr.p4calc.operand_b); }
    action operation_sat_sub() { send_back(hdr.p4calc.operand_a |-| hdr.p4calc.operand_b); }
    action operation_signed_sat() {
        // signed saturating add on the low bytes, sign-extended back to 32 bits
        int<8> a = (int<8>)hdr.p4calc.operand_a[7:0];
        int<8> b = (int<8>)hdr.p4calc.operand_b[7:0];
        int<8> r = a |+| b;
        send_back((bit<32>)(int<32>)r);
    }
    action operation_shift() {
        send_back(hdr.p4calc.operand_a << hdr.p4calc.operand_b[7:0]);
    }
    action operation_drop() {
        mark_to_drop(standard_metadata);
    }
    table calculate {
        key = {
            hdr.p4calc.op : exact;
        }
        actions = {
            operation_add;
            operation_sub;
            operation_and;
            operation_or;
            operation_xor;
            operation_sat_add;
            operation_sat_sub;
            operation_signed_sat;
            operation_shift;
            operation_drop;
        }
        const default_action = operation_drop();
        const entries = {
            P4CALC_PLUS  : operation_add();
            P4CALC_MINUS : operation_sub();
            P4CALC_AND   : operation_and();
            P4CALC_OR    : operation_or();
            P4CALC_CARET : operation_xor();
            0x50         : operation_sat_add();
            0x51         : operation_sat_sub();
            0x52         : operation_signed_sat();
            0x3c         : operation_shift();
        }
    }
    apply {
        if (hdr.p4calc.isValid()) {
            calculate.apply();
        } else {
            operation_drop();
        }
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    apply { }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.p4calc);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
