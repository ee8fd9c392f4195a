// Annotations in every position p4c's grammar allows: declarations, fields, parameters,
// statements, blocks, table properties, keys, action refs, entries; structured and
// unknown annotations, annotations with arbitrary token bodies.
#include <core.p4>
#include <v1model.p4>

@my_anno("top") @structured[k = 1, s = "x", b = true]
header h_t {
    @field_anno bit<8> a;
    @name("bee") @weird(1, 2, "three", foo.bar) bit<8> b;
}
@flexible struct headers { @hdr h_t h; }
struct meta_t { @sat bit<8> m; }

@unknown_list[1, 2, 3]
parser P(packet_in pkt, @optional_note out headers hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    @state_anno state start {
        @stmt_anno pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }

@pure_looking
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @name("my_set") action set(@name("val") bit<8> v, @p bit<9> port) {
        @assign hdr.h.b = v;
        sm.egress_spec = port;
    }
    @hidden action nop() { }
    @name(".drop_it") action drop() { mark_to_drop(sm); }
    @my_table_anno
    table t {
        @key_prop key = { hdr.h.a : exact @name("akey") @kanno; }
        @acts actions = { @tableonly set; @defaultonly nop; drop; }
        @dflt default_action = nop();
        @sz size = 16;
        @custom_property custom_thing = 7;
        @entries_anno const entries = {
            8w1 : set(8w0x11, 9w2) @entry_anno;
            (8w2) : set(0x22, 3);
            8w3 : drop();
        }
    }
    apply {
        @blk {
            sm.egress_spec = 1;
        }
        @apply_anno t.apply();
        @if_anno if (hdr.h.a == 9) { @x hdr.h.b = 0x99; }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
@main_anno
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
