// Parser errors (verify, short packets) set parser_error; the packet is not dropped.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
}

header h2_t {
    bit<16> v;
}

struct headers_t {
    h_t  h;
    h2_t h2;
}

struct meta_t {
}

error { BadVersion }

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        verify(hdr.h.a == 1, error.BadVersion);
        pkt.extract(hdr.h2);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.NoError) {
            hdr.h.b = 0;
        } else if (sm.parser_error == error.PacketTooShort) {
            hdr.h.b = 1;
        } else if (sm.parser_error == error.BadVersion) {
            hdr.h.b = 7;
        } else {
            hdr.h.b = 0xff;
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
        pkt.emit(hdr.h);
        pkt.emit(hdr.h2);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
