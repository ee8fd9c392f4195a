// Named arguments in extern method calls (register read/write, counter count, meter
// execute_meter) and extern functions (random with equal bounds, clone-free builtins).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; }
struct headers { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(8) r;
    counter(8, CounterType.packets) c;
    meter(8, MeterType.bytes) m;
    apply {
        sm.egress_spec = 1;
        r.write(value = hdr.h.a, index = 32w2);
        r.read(index = 2, result = hdr.h.b);
        c.count(index = 32w3);
        bit<2> colour = 3;
        m.execute_meter(result = colour, index = 32w1);
        bit<8> rnd;
        random(hi = 8w9, lo = 8w9, result = rnd);
        hdr.h.c = (bit<8>)colour + rnd;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
