// Variable-length extract errors in BMv2's order: a length that is not whole bytes gives
// ParserInvalidArgument, then a packet too short PacketTooShort, then a length above the
// varbit maximum HeaderTooShort.
#include <core.p4>
#include <v1model.p4>
header len_t { bit<8> n; }
header v_t { bit<8> fixed; varbit<16> data; }
header r_t { bit<8> err; }
struct headers { r_t r; len_t l; v_t v; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.l); pkt.extract(hdr.v, (bit<32>)hdr.l.n); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.r.setValid();
        hdr.r.err = sm.parser_error == error.PacketTooShort ? 8w1 :
                    sm.parser_error == error.HeaderTooShort ? 8w4 :
                    sm.parser_error == error.ParserInvalidArgument ? 8w6 :
                    sm.parser_error == error.NoError ? 8w0 : 8w0xEE;
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.r); pkt.emit(hdr.l); pkt.emit(hdr.v); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
