/* Control-plane objects: controller headers, @id/@name, counters, meters, registers,
   digests, action profiles and selectors. */
#include <core.p4>
#include <v1model.p4>

@controller_header("packet_in")
header packet_in_t { bit<9> ingress_port; bit<7> pad; }
@controller_header("packet_out")
header packet_out_t { bit<9> egress_port; bit<7> pad; }
header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
struct learn_t { bit<48> mac; bit<9> port; }
struct metadata { bit<14> sel; }
struct headers { packet_out_t packet_out; packet_in_t packet_in; ethernet_t ethernet; }

parser PP(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            64: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out { packet.extract(hdr.packet_out); transition parse_ethernet; }
    state parse_ethernet { packet.extract(hdr.ethernet); transition accept; }
}
control PV(inout headers hdr, inout metadata meta) { apply { } }
control PI(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    counter(16, CounterType.packets_and_bytes) port_counter;
    direct_counter(CounterType.bytes) acl_counter;
    meter(8, MeterType.bytes) port_meter;
    register<bit<32>>(4) reg;
    action_selector(HashAlgorithm.crc32, 32w128, 32w14) sel;
    @id(0x01000042) action set_port(bit<9> port) { sm.egress_spec = port; }
    @name(".global_drop") action drop() { mark_to_drop(sm); }
    action learn() { digest<learn_t>(1, { hdr.ethernet.srcAddr, sm.ingress_port }); }
    @name("acl_table") table acl {
        key = { hdr.ethernet.dstAddr: ternary; hdr.ethernet.etherType: range @name("etype"); }
        actions = { set_port; drop; @defaultonly NoAction; }
        counters = acl_counter;
        size = 64;
    }
    table ecmp {
        key = { hdr.ethernet.dstAddr: exact; hdr.ethernet.srcAddr: selector; }
        actions = { set_port; }
        implementation = sel;
    }
    table smac { key = { hdr.ethernet.srcAddr: exact; } actions = { learn; NoAction; } }
    apply {
        if (hdr.packet_out.isValid()) {
            sm.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            exit;
        }
        port_counter.count((bit<32>)sm.ingress_port);
        bit<8> color;
        port_meter.execute_meter((bit<32>)sm.ingress_port, color);
        reg.write(0, (bit<32>)color);
        smac.apply();
        if (!acl.apply().hit) { ecmp.apply(); }
    }
}
control PE(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == 64) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = sm.ingress_port;
        }
    }
}
control PC(inout headers hdr, inout metadata meta) { apply { } }
control PD(packet_out packet, in headers hdr) {
    apply { packet.emit(hdr.packet_in); packet.emit(hdr.ethernet); }
}
V1Switch(PP(), PV(), PI(), PE(), PC(), PD()) main;
