// Packets shorter than the headers: a 1-byte frame fails the first extract
// (PacketTooShort, nothing valid, every byte leaves as payload), a frame that ends inside
// the second header keeps the first one. Nothing is padded; packet_length is the frame length.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header h_t { bit<8> a; bit<8> b; }
struct headers { eth_t eth; h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) { 0x0800: parse_h; default: accept; }
    }
    state parse_h { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.PacketTooShort) {
            sm.egress_spec = 2;
        }
        if (!hdr.eth.isValid()) {
            sm.egress_spec = 3;
        }
        if (hdr.h.isValid()) {
            hdr.h.b = (bit<8>)sm.packet_length;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
