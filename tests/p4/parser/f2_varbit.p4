// varbit extraction with a computed length in 4-bit units: fits, zero length, longer than
// the declared maximum (HeaderTooShort), not a whole number of bytes
// (ParserInvalidArgument), and past the end of the packet (PacketTooShort).
#include <core.p4>
#include <v1model.p4>

header fixed_t { bit<8> len; }
header opts_t { varbit<32> data; }
header tail_t { bit<8> t; }
struct headers { fixed_t fixed; opts_t opts; tail_t tail; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.fixed);
        pkt.extract(hdr.opts, (bit<32>)hdr.fixed.len * 4);
        pkt.extract(hdr.tail);
        transition accept;
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.HeaderTooShort) {
            sm.egress_spec = 2;
        } else if (sm.parser_error == error.PacketTooShort) {
            sm.egress_spec = 3;
        } else if (sm.parser_error == error.ParserInvalidArgument) {
            sm.egress_spec = 4;
        }
        if (hdr.tail.isValid()) {
            hdr.tail.t = hdr.tail.t + 1;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.fixed); pkt.emit(hdr.opts); pkt.emit(hdr.tail); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
