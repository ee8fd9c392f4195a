// Parser features at once: lookahead with masks in select, tuple select with ranges and
// default, varbit IPv4 options sized at run time, advance, header unions, stacks with
// .next/.last/.lastIndex, parser locals, verify with user errors, an empty value_set.
#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<4> kind;
    bit<4> len;
    bit<8> flags;
}

header v4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> total;
    varbit<88> options;   // a run-time number of bytes
}

header v4opts_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      tos;
    varbit<120> opts;
}

header v6_t {
    bit<4>  version;
    bit<12> flow;
    bit<16> plen;
}

header_union ip_u {
    v4_t v4;
    v6_t v6;
}

header item_t {
    bit<7> val;
    bit<1> more;
}

header report_t {
    bit<8>  err;
    bit<8>  nitems;
    bit<8>  last_val;
    bit<8>  which;
    bit<8>  local;
    bit<8>  optlen;
}

struct headers {
    tag_t     tag;
    ip_u      ip;
    item_t[4] items;
    report_t  rep;
}

struct meta_t {
    bit<8> nitems;
    bit<8> last_val;
    bit<8> which;
    bit<8> local;
}

error { BadKind, TooManyItems }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) special;
    bit<8> acc = 0;

    state start {
        pkt.extract(hdr.tag);
        verify(hdr.tag.kind != 0xF, error.BadKind);
        transition select(hdr.tag.kind, hdr.tag.flags) {
            (0, _):                    items;
            (1 .. 3, 8w0x00 &&& 8w0x80): ip;
            (4, 8w0x80 &&& 8w0x80):     skip;
            (5, _):                    check_special;
            default:                   accept;
        }
    }
    state check_special {
        transition select(pkt.lookahead<bit<16>>()) {
            special: items;
            default: skip;
        }
    }
    state skip {
        pkt.advance((bit<32>)hdr.tag.len * 8);
        meta.which = 0xAD;
        transition items;
    }
    state ip {
        transition select(pkt.lookahead<bit<8>>()) {
            8w0x40 &&& 8w0xF0: ip4;
            8w0x60 &&& 8w0xF0: ip6;
            default: accept;
        }
    }
    state ip4 {
        bit<4> ihl = pkt.lookahead<bit<8>>()[3:0];
        pkt.extract(hdr.ip.v4, (bit<32>)(ihl - 1) * 32);
        meta.which = 4;
        transition items;
    }
    state ip6 {
        pkt.extract(hdr.ip.v6);
        meta.which = 6;
        transition items;
    }
    state items {
        pkt.extract(hdr.items.next);
        acc = acc + (bit<8>)hdr.items.last.val;
        meta.nitems = (bit<8>)hdr.items.lastIndex + 1;
        meta.last_val = (bit<8>)hdr.items.last.val;
        transition select(hdr.items.last.more) {
            1: items;
            default: done;
        }
    }
    state done {
        meta.local = acc;
        transition accept;
    }
}

control VC(inout headers hdr, inout meta_t meta) { apply { } }

control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.rep.setValid();
        hdr.rep.err = (bit<8>)(sm.parser_error == error.NoError ? 8w0 :
                               sm.parser_error == error.PacketTooShort ? 8w1 :
                               sm.parser_error == error.StackOutOfBounds ? 8w3 :
                               sm.parser_error == error.HeaderTooShort ? 8w4 :
                               sm.parser_error == error.ParserInvalidArgument ? 8w6 :
                               sm.parser_error == error.BadKind ? 8w7 :
                               sm.parser_error == error.TooManyItems ? 8w8 : 8w0xEE);
        hdr.rep.nitems = meta.nitems;
        hdr.rep.last_val = meta.last_val;
        hdr.rep.which = meta.which;
        hdr.rep.local = meta.local;
        if (hdr.ip.v4.isValid()) {
            hdr.rep.optlen = (bit<8>)hdr.ip.v4.ihl;
        } else if (hdr.ip.v6.isValid()) {
            hdr.rep.optlen = 0x66;
        }
        sm.egress_spec = 3;
    }
}

control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers hdr) {
    apply {
        pkt.emit(hdr.rep);
        pkt.emit(hdr.tag);
        pkt.emit(hdr.ip);
        pkt.emit(hdr.items);
    }
}

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
