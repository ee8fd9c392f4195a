// IPv4 with options as a varbit field sized by ihl, header checksum over the fixed fields
// and the options (verify + update), TTL decrement, and a copy of the varbit header into a
// second header instance that is emitted too.
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

header ipv4_opts_t {
    varbit<320> options;
}

header marker_t {
    bit<8> ok;
}

struct headers {
    ethernet_t  ethernet;
    ipv4_t      ipv4;
    ipv4_opts_t opts;
    ipv4_opts_t copy;
    marker_t    marker;
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
        transition select(hdr.ipv4.ihl) {
            5: accept;
            default: options;
        }
    }
    state options {
        pkt.extract(hdr.opts, (bit<32>)(hdr.ipv4.ihl - 5) * 32);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.opts.options },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.marker.setValid();
        hdr.marker.ok = sm.checksum_error == 0 ? 8w1 : 8w0;
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        }
        if (hdr.ipv4.isValid() && hdr.ipv4.diffserv == 0xCC) {
            hdr.copy = hdr.opts;
        }
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control CC(inout headers hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.totalLen,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.opts.options },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.opts);
        pkt.emit(hdr.copy);
        pkt.emit(hdr.marker);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
