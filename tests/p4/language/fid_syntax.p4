// Front-end syntax that p4c accepts: macros with arguments, nested #if/#elif, annotations
// in many places, @name/@id/@priority, trailing commas, typedef chains, `type` with casts,
// serializable enums, arbitrary-precision int constants, concatenation of sized literals,
// negative casts, slice assignment, masks and ranges in const entries and select, tuple
// select, value_set, list and struct expressions.
#include <core.p4>
#include <v1model.p4>

#define VERSION 3
#define ADD3(a, b, c) ((a) + (b) + (c))
#define MASK_LOW(x, n) ((x) & ((1 << (n)) - 1))

#if VERSION > 2
#  if defined(NOT_DEFINED_ANYWHERE)
#    define FLAVOUR 1
#  elif VERSION == 3
#    define FLAVOUR 2
#  else
#    define FLAVOUR 3
#  endif
#else
#  define FLAVOUR 4
#endif

typedef bit<8>   u8;
typedef u8       small_t;
typedef small_t  tiny_t;
type bit<16>     Tag_t;

enum bit<8> Kind {
    ZERO  = 0,
    ONE   = 1,
    SEVEN = 7,
}

enum Colour { Red, Green, Blue, }

const int    HUGE   = 0x1_0000_0000_0000;       // needs more than 32 bits
const bit<8> MINUS1 = (bit<8>)-1;
const bit<8> TOP    = 1w1 ++ 7w0;

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> _pad;
}

header data_t {
    tiny_t  k;
    Kind    kind;
    bit<16> t;
    bit<8>  r0;
    bit<8>  r1;
    bit<8>  r2;
    bit<8>  r3;
    bit<64> big;
}

struct headers {
    @name("the_data") data_t data;
}

struct meta_t {
    @field_list(1) bit<8> x;
}

parser MyP(packet_in pkt, out headers hdr, inout meta_t meta,
           inout standard_metadata_t sm) {
    @name("vs") value_set<bit<16>>(4) vs;

    @name(".start_state") state start {
        pkt.extract(hdr.data);
        transition select(hdr.data.k, hdr.data.kind) {
            (8w0x10 &&& 8w0xF0, Kind.ONE) : accept;
            (0x20 .. 0x2F, _)             : accept;
            (_, Kind.SEVEN)               : accept;
            default                       : check_vs;
        }
    }
    state check_vs {
        transition select(hdr.data.t) {
            vs      : accept;
            default : accept;
        }
    }
}

control MyVC(inout headers hdr, inout meta_t meta) {
    apply { }
}

control MyI(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @name("set_r0") @id(0x01000123)
    action set_r0(@name("value") bit<8> v) {
        hdr.data.r0 = v;
    }
    action set_r0_twice(bit<8> v, bit<8> w) {
        hdr.data.r0 = ADD3(v, w, 8w0);
    }
    @name("classify")
    table classify {
        key = {
            hdr.data.k    : ternary @name("k");
            hdr.data.t    : range;
        }
        actions = {
            set_r0;
            set_r0_twice;
            @defaultonly NoAction;
        }
        const entries = {
            (0x10 &&& 0xF0, 0 .. 100)     : set_r0(1);
            (0x11, _)                     : set_r0(2);
            (_, 0x1000 .. 0x1FFF)         : set_r0_twice(3, 4);
            @priority(1) (0x99, 500 .. 600) : set_r0(9);
        }
        const default_action = NoAction();
        size = 16;
    }
    apply {
        sm.egress_spec = 2;
        classify.apply();
        tiny_t a = hdr.data.k;
        a[7:4] = 4w0xF;
        hdr.data.r1 = a;
        Tag_t tag = (Tag_t)hdr.data.t;
        hdr.data.r2 = (bit<8>)((bit<16>)tag >> 8) ^ MINUS1;
        hdr.data.r3 = (bit<8>)MASK_LOW(hdr.data.k, 3) | TOP | (bit<8>)FLAVOUR;
        hdr.data.big = HUGE + (bit<64>)(Kind.SEVEN == hdr.data.kind ? 8w1 : 8w0);
        meta = { x = hdr.data.k };
    }
}

control MyE(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCC(inout headers hdr, inout meta_t meta) {
    apply { }
}

control MyD(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr);
    }
}

V1Switch(MyP(), MyVC(), MyI(), MyE(), MyCC(), MyD()) main;
