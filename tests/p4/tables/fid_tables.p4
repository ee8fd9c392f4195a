// Table semantics: ternary + range keys with STF priorities, const entries with masks,
// ranges, `_`, @priority; action_run switches with fall-through; hit/miss in
// expressions; default actions with arguments; a direct counter; a key on isValid().
// (Each table is applied once: p4c-bm2-ss rejects a second apply.)
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<8>  r1;
    bit<8>  r2;
    bit<8>  r3;
    bit<8>  r4;
}

header opt_t {
    bit<8> v;
}

struct headers {
    h_t   h;
    opt_t opt;
}

struct meta_t {
    bit<8> tag;
}

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a) {
            0xEE: get_opt;
            default: accept;
        }
    }
    state get_opt {
        pkt.extract(hdr.opt);
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) tcnt;

    action set1(bit<8> v) { hdr.h.r1 = v; tcnt.count(); }
    action set1b(bit<8> v) { hdr.h.r1 = v | 0x80; tcnt.count(); }
    action miss1() { hdr.h.r1 = 0xFF; tcnt.count(); }

    table t_rng {
        key = {
            hdr.h.a : ternary;
            hdr.h.c : range;
        }
        actions = { set1; set1b; miss1; }
        default_action = miss1();
        counters = tcnt;
    }

    action set2(bit<8> v) { hdr.h.r2 = v; }
    action other2() { hdr.h.r2 = 0x22; }

    table t_const {
        key = {
            hdr.h.a : ternary;
            hdr.h.b : exact;
        }
        actions = { set2; other2; @defaultonly NoAction; }
        const entries = {
            (0x10 &&& 0xF0, 1) : set2(0x11);
            (0x12, 1)          : set2(0x12);       // listed later: loses to the line above
            (_, 2)             : other2();
            @priority(1) (0x30 &&& 0xF0, 3) : set2(0x31);
            @priority(2) (0x33, 3)          : set2(0x33);
        }
        default_action = NoAction();
    }

    action set3(bit<8> v) { hdr.h.r3 = v; }
    table t_valid {
        key = {
            hdr.opt.isValid() : exact;
            hdr.opt.v         : ternary @name("optv");
        }
        actions = { set3; NoAction; }
        default_action = set3(0x99);
    }

    apply {
        sm.egress_spec = 1;
        switch (t_rng.apply().action_run) {
            set1:
            set1b: {
                hdr.h.r4 = 1;
            }
            default: {
                hdr.h.r4 = 2;
            }
        }
        if (t_const.apply().hit) {
            hdr.h.r4 = hdr.h.r4 | 0x10;
        } else {
            hdr.h.r4 = hdr.h.r4 | 0x20;
        }
        if (!t_valid.apply().miss) {
            hdr.h.r4 = hdr.h.r4 | 0x40;
        }
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.opt);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
