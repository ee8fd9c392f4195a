/* Syntax corners: structured annotations, type names shadowed by parameters, negative
   signed literals, `priority =` entries, @id/@name, @atomic blocks, contextual keywords. */
#include <core.p4>
#include <v1model.p4>
typedef bit<48> mac_t;
type bit<9> port_t;
header h_t { mac_t a; bit<16> state_; }
struct metadata { bit<8> key; bit<8> type; bit<8> priority; }
struct headers { h_t h; }
@Foo[a=1, b="x"]
parser p(packet_in pk, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    @name(".start") state start { pk.extract<h_t>(hdr.h); transition select(hdr.h.state_) { 16w0x1 &&& 16w0xF : accept; (16w2): accept; default : accept; } }
}
control vc(inout headers hdr, inout metadata meta) { apply {} }
control ig(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    @name("ig.act") @id(0x01000123) action act(@name("port") bit<9> p, bit<8> type) { sm.egress_spec = p; meta.type = type; }
    table t {
        key = { hdr.h.a : exact @name("mac"); meta.key : ternary; }
        actions = { act; @defaultonly NoAction; }
        const default_action = NoAction();
        entries = {
            priority = 20 : (48w1, 8w0 &&& 8w0) : act(1, 2);  // p4c: the first needs one
            priority = 10 : (48w2, _) : act(2, 3);
        }
    }
    apply {
        meta.priority = (bit<8>) 8s-1;
        if (t.apply().miss) { sm.egress_spec = 0x1FF; }
        @atomic { meta.key = meta.key + 1; }
    }
}
control eg(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) { apply {} }
control ck(inout headers hdr, inout metadata meta) { apply {} }
control dp(packet_out pk, in headers hdr) { apply { pk.emit(hdr); } }
V1Switch(p(), vc(), ig(), eg(), ck(), dp()) main;
