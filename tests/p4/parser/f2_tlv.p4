// A TLV parser loop: select on ingress_port, advance by constant and computed amounts,
// lookahead of a whole header into a state-local variable, tuple select with a mask and
// `_`, a metadata loop counter, a scratch header that is never emitted (so skipped TLVs
// leave the packet), StackOutOfBounds, and lookahead/advance past the end of the packet.
// Ingress inserts a summary header in front.
#include <core.p4>
#include <v1model.p4>

header out_t { bit<8> cnt; bit<8> skipped; bit<8> nopt; }
header t_t { bit<8> kind; bit<8> len; }
struct headers { out_t summary; t_t scratch; t_t[2] opts; t_t term; }
struct meta_t { bit<8> cnt; bit<8> skipped; }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) { 9: special; default: loop; }
    }
    state special { pkt.advance(16); transition loop; }
    state loop {
        t_t peek = pkt.lookahead<t_t>();
        transition select(peek.kind, peek.len) {
            (0, _): end;
            (1, 8w0 &&& 8w1): skip_even;
            (1, _): skip_odd;
            (2, _): keep;
            default: accept;
        }
    }
    state end { pkt.extract(hdr.term); transition accept; }
    state skip_even {
        pkt.extract(hdr.scratch);
        meta.skipped = meta.skipped + 1;
        pkt.advance((bit<32>)hdr.scratch.len * 8);
        meta.cnt = meta.cnt + 1;
        transition select(meta.cnt) { 4: accept; default: loop; }
    }
    state skip_odd {
        pkt.extract(hdr.scratch);
        meta.skipped = meta.skipped + 0x10;
        pkt.advance((bit<32>)hdr.scratch.len * 8);
        meta.cnt = meta.cnt + 1;
        transition select(meta.cnt) { 4: accept; default: loop; }
    }
    state keep {
        pkt.extract(hdr.opts.next);
        meta.cnt = meta.cnt + 1;
        transition select(meta.cnt) { 4: accept; default: loop; }
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.summary.setValid();
        hdr.summary.cnt = meta.cnt;
        hdr.summary.skipped = meta.skipped;
        hdr.summary.nopt = 0;
        if (hdr.opts[0].isValid()) { hdr.summary.nopt = hdr.summary.nopt + 1; }
        if (hdr.opts[1].isValid()) { hdr.summary.nopt = hdr.summary.nopt + 1; }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.summary); pkt.emit(hdr.opts); pkt.emit(hdr.term); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
