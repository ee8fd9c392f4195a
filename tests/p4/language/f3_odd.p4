// Odd corners: comments between any tokens, annotations after an entry's action,
// annotations with escaped strings, counters and meters used through methods with
// explicit type arguments, setInvalid in an action, a file ending without a newline.
#include <core.p4>   // trailing comment on an include
/* comment between includes */
#include <v1model.p4>

header/**/h_t { bit /* width follows */ <8> a; bit<8>/* */b; bit<32> c; }
struct headers { h_t h; h_t h2; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.h2); transition accept; }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @my_doc("a \"quoted\" word") counter(32w16, CounterType.packets_and_bytes) cnt;
    meter(32w4, MeterType.packets) mtr;
    action drop_second() { hdr.h2.setInvalid(); cnt.count((bit<32>)hdr.h.a); }
    action keep() { cnt.count(32w0); }
    table t {
        key = { hdr.h.a : exact; }
        actions = { drop_second; keep; }
        const entries = {
            1 : drop_second() @entry_after_action("x");
            2 : keep() @another;
        }
        default_action = keep();
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
        bit<2> colour;
        mtr.execute_meter<bit<2>>((bit<32>)hdr.h.b, colour);
        hdr.h.c = (bit<32>)colour + 32w0xFFFF_FF00;
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main; // no newline after this