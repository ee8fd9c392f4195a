// UDP checksum over the pseudo-header and the payload (verify/update with payload), the
// IPv4 header checksum, checksum_error routing, and NAT-style rewrites that force both
// checksums to be recomputed in the deparser.
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

header udp_t {
    bit<16> srcPort;
    bit<16> dstPort;
    bit<16> length_;
    bit<16> checksum;
}

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
}

struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: udp;
            default: accept;
        }
    }
    state udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
        verify_checksum_with_payload(hdr.udp.isValid() && hdr.udp.checksum != 0,
            { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, 8w0, hdr.ipv4.protocol, hdr.udp.length_,
              hdr.udp.srcPort, hdr.udp.dstPort, hdr.udp.length_ },
            hdr.udp.checksum, HashAlgorithm.csum16);
    }
}

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action snat(bit<32> addr, bit<16> port) {
        hdr.ipv4.srcAddr = addr;
        hdr.udp.srcPort = port;
    }
    table nat {
        key = {
            hdr.ipv4.srcAddr : exact;
            hdr.udp.srcPort  : exact;
        }
        actions = { snat; NoAction; }
        default_action = NoAction();
    }
    apply {
        if (sm.checksum_error == 1) {
            sm.egress_spec = 9;
            return;
        }
        sm.egress_spec = 1;
        if (hdr.udp.isValid()) {
            nat.apply();
        }
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control CC(inout headers hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
        update_checksum_with_payload(hdr.udp.isValid(),
            { hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, 8w0, hdr.ipv4.protocol, hdr.udp.length_,
              hdr.udp.srcPort, hdr.udp.dstPort, hdr.udp.length_ },
            hdr.udp.checksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
