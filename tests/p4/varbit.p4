// varbit extraction with a run-time length; too long -> HeaderTooShort, not dropped.
#include <core.p4>
#include <v1model.p4>

header len_t {
    bit<8> len;
}

header var_t {
    varbit<64> data;
}

header item_t {
    bit<8> v;
}

struct headers_t {
    len_t  len;
    var_t  var;
    item_t trailer;
}

struct meta_t {
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.len);
        pkt.extract(hdr.var, (bit<32>)hdr.len.len * 8);
        pkt.extract(hdr.trailer);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        if (sm.parser_error == error.HeaderTooShort) {
            sm.egress_spec = 2;
        } else {
            sm.egress_spec = 1;
            hdr.trailer.v = hdr.trailer.v + 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.len);
        pkt.emit(hdr.var);
        pkt.emit(hdr.trailer);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
