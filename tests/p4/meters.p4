// Indexed meter colors (unconfigured GREEN; configured trTCM) and a direct meter.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<2> color;
    bit<2> dcolor;
}

parser MyParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {

    meter(4, MeterType.packets) m;
    direct_meter<bit<2>>(MeterType.packets) dm;

    action read_color() {
        dm.read(meta.dcolor);
    }
    table t {
        key = { hdr.h.a: exact; }
        actions = { read_color; }
        meters = dm;
        default_action = read_color();
    }
    apply {
        sm.egress_spec = 1;
        m.execute_meter((bit<32>)hdr.h.a, meta.color);
        hdr.h.b = (bit<8>)meta.color;
        meta.dcolor = 3;
        t.apply();
        hdr.h.c = (bit<16>)meta.dcolor;
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
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), MyComputeChecksum(),
         MyDeparser()) main;
