/* Cloning, resubmission, recirculation, multicast, digests and truncation. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }
header tag_t { bit<8> itype; bit<8> port; bit<8> kept; bit<8> rid; }
struct learn_t { bit<48> srcAddr; bit<9> port; }
struct metadata {
    @field_list(1) bit<8> kept;
    bit<8> lost;
}
struct headers { ethernet_t ethernet; tag_t tag; }

parser RParser(packet_in packet, out headers hdr, inout metadata meta,
               inout standard_metadata_t standard_metadata) {
    state start { packet.extract(hdr.ethernet); transition accept; }
}

control RVerify(inout headers hdr, inout metadata meta) { apply { } }

control RIngress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        bit<8> mode = hdr.ethernet.dstAddr[7:0];
        if (standard_metadata.instance_type == 0) {
            meta.kept = 0x11;
            meta.lost = 0x22;
            digest<learn_t>(1, { hdr.ethernet.srcAddr, standard_metadata.ingress_port });
        }
        standard_metadata.egress_spec = 1;
        if (mode == 1) {
            clone_preserving_field_list(CloneType.I2E, 5, 1);
        } else if (mode == 2) {
            if (standard_metadata.instance_type == 0) {
                resubmit_preserving_field_list(1);
            }
        } else if (mode == 3) {
            standard_metadata.mcast_grp = 7;
        } else if (mode == 4) {
            truncate(10);
        } else if (mode == 5) {
            mark_to_drop(standard_metadata);
            clone(CloneType.I2E, 5);
        }
    }
}

control REgress(inout headers hdr, inout metadata meta,
                inout standard_metadata_t standard_metadata) {
    apply {
        hdr.tag.setValid();
        hdr.tag.itype = (bit<8>)standard_metadata.instance_type;
        hdr.tag.port = (bit<8>)standard_metadata.egress_port;
        hdr.tag.kept = meta.kept;
        hdr.tag.rid = (bit<8>)standard_metadata.egress_rid;
        if (hdr.ethernet.dstAddr[7:0] == 6 && meta.lost == 0x22) {
            recirculate_preserving_field_list(1);
        }
        if (hdr.ethernet.dstAddr[7:0] == 8 && standard_metadata.instance_type == 0) {
            clone_preserving_field_list(CloneType.E2E, 5, 1);
        }
    }
}

control RCompute(inout headers hdr, inout metadata meta) { apply { } }

control RDeparser(packet_out packet, in headers hdr) {
    apply { packet.emit(hdr.ethernet); packet.emit(hdr.tag); }
}

V1Switch(RParser(), RVerify(), RIngress(), REgress(), RCompute(), RDeparser()) main;
