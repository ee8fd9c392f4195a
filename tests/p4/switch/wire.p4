// Two-port wire: port 1 <-> port 2, no tables (tests of the switch process).
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t eth; }
struct meta_t { }

parser WireParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control WireIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.ingress_port == 1) { sm.egress_spec = 2; } else { sm.egress_spec = 1; }
    }
}
control NoEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control NoChecksum(inout headers_t hdr, inout meta_t meta) { apply { } }
control WireDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }

V1Switch(WireParser(), NoVerify(), WireIngress(), NoEgress(), NoChecksum(), WireDeparser()) main;
