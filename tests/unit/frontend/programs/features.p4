#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

#define MAX_HOPS 4
#define PORT_OF(x) ((bit<9>)(x))

typedef bit<32> ip4Addr_t;
enum bit<16> EtherType { IPV4 = 0x0800, VLAN = 0x8100, SRC = 0x1234 }
enum Color { RED, GREEN }
error { BadVersion }

header ethernet_t { bit<48> dst; bit<48> src; EtherType etherType; }
header srcRoute_t { bit<1> bos; bit<15> port; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;
    bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;
    ip4Addr_t srcAddr; ip4Addr_t dstAddr;
}
header ipv4_options_t { varbit<320> options; }
header small_t { bit<8> a; int<8> s; }
header u1_t { bit<8> x; }
header u2_t { bit<16> y; }
header_union u_t { u1_t one; u2_t two; }

struct inner_t { bit<8> v; @field_list(1) bit<16> kept; }
struct metadata {
    inner_t inner;
    bit<32> hashv;
    bit<8> color;
    Color c;
    bit<16> counter_val;
    bool flag;
}
struct headers {
    ethernet_t ethernet;
    srcRoute_t[MAX_HOPS] srcRoutes;
    ipv4_t ipv4;
    ipv4_options_t opts;
    small_t small;
    u_t u;
}

bit<8> add_sat(in bit<8> a, in bit<8> b) {
    return a |+| b;
}

parser P(packet_in pkt, out headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) extra_types;
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            EtherType.IPV4: parse_ipv4;
            EtherType.SRC: parse_src;
            0x9000 &&& 0xF000: parse_small;
            0x8800 .. 0x88FF: parse_union;
            extra_types: parse_small;
            default: accept;
        }
    }
    state parse_src {
        pkt.extract(hdr.srcRoutes.next);
        transition select(hdr.srcRoutes.last.bos) {
            1: parse_ipv4;
            default: parse_src;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4, error.BadVersion);
        pkt.extract(hdr.opts, (bit<32>)(((bit<16>)hdr.ipv4.ihl - 5) * 32));
        transition accept;
    }
    state parse_small {
        pkt.extract(hdr.small);
        transition accept;
    }
    state parse_union {
        bit<8> first = pkt.lookahead<bit<8>>();
        transition select(first) {
            0: parse_one;
            default: parse_two;
        }
    }
    state parse_one { pkt.extract(hdr.u.one); transition accept; }
    state parse_two { pkt.extract(hdr.u.two); transition accept; }
}

control VC(inout headers hdr, inout metadata meta) { apply { } }

control Sub(inout bit<8> x, in bit<8> y) {
    action bump() { x = x + y; }
    apply { bump(); }
}

control I(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    register<bit<32>, bit<32>>(16) regs;
    counter<bit<32>>(8, CounterType.packets_and_bytes) ctr;
    direct_counter(CounterType.packets) dctr;
    bit<8> tmp = 3;
    Sub() sub;

    action drop() { mark_to_drop(sm); }
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action set_color(bit<8> c) { meta.color = c; }
    table tern {
        key = { hdr.small.a: ternary; hdr.small.isValid(): exact @name("small_valid"); }
        actions = { set_color; NoAction; }
        const entries = {
            (0x10 &&& 0xF0, true): set_color(1);
            (_, true): set_color(2);
        }
        counters = dctr;
        default_action = NoAction();
    }
    table route {
        key = { hdr.srcRoutes[0].port: exact; }
        actions = { fwd; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.srcRoutes[0].isValid()) {
            route.apply();
            hdr.srcRoutes.pop_front(1);
            if (!hdr.srcRoutes[0].isValid()) {
                hdr.ethernet.etherType = EtherType.IPV4;
            }
            return;
        }
        switch (tern.apply().action_run) {
            set_color: { sm.egress_spec = PORT_OF(meta.color); }
            default: { sm.egress_spec = 9w7; }
        }
        if (hdr.small.isValid()) {
            bit<8> a = hdr.small.a;
            sub.apply(a, tmp);
            hdr.small.a = add_sat(a, 250);
            hdr.small.s = hdr.small.s >> 1;
            hdr.small.a[3:0] = 4w0xF;
            bit<32> cur;
            regs.read(cur, 2);
            regs.write(2, cur + 1);
            ctr.count(1);
            hash(meta.hashv, HashAlgorithm.crc16, 16w0, { hdr.ethernet.dst, hdr.small.a }, 32w1024);
            hdr.ethernet.src = (bit<48>)meta.hashv;
            meta.c = Color.GREEN;
            if (meta.c == Color.GREEN && meta.hashv[0:0] == 0 || true) {
                meta.inner.kept = 16w0xBEEF;
            }
            hdr.ethernet.dst = hdr.ethernet.dst ++ 8w0 == 56w0 ? 48w1 : 48w2;
        }
        if (hdr.u.two.isValid()) {
            hdr.u.one.setValid();
            hdr.u.one.x = 0x42;
            sm.egress_spec = 5;
        }
    }
}

control E(inout headers hdr, inout metadata meta, inout standard_metadata_t sm) {
    apply {
        if (sm.egress_port == 7) { exit; }
    }
}

control CC(inout headers hdr, inout metadata meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(), { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
            hdr.ipv4.totalLen, hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.fragOffset,
            hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.srcAddr, hdr.ipv4.dstAddr, hdr.opts.options },
            hdr.ipv4.hdrChecksum, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr); }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
