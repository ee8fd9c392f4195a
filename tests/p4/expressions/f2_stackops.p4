// Header stack operations in a control: push_front/pop_front shifting validity and
// contents, reads and writes through a run-time index, header-to-header assignment
// copying validity, setInvalid, and emit of a stack with holes.
#include <core.p4>
#include <v1model.p4>

header ctl_t { bit<8> op; bit<8> idx; bit<8> val; bit<8> res; }
header e_t { bit<8> v; }
struct headers { ctl_t ctl; e_t[4] s; e_t extra; }
struct meta_t { }

parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ctl);
        pkt.extract(hdr.s.next);
        pkt.extract(hdr.s.next);
        transition accept;
    }
}
control VC(inout headers hdr, inout meta_t meta) { apply { } }
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action write_at(bit<8> i, bit<8> v) { hdr.s[i].v = v; }
    apply {
        sm.egress_spec = 1;
        if (hdr.ctl.op == 1) {
            hdr.s.push_front(1);
            hdr.s[0].setValid();
            hdr.s[0].v = 0xA0;
        } else if (hdr.ctl.op == 2) {
            hdr.s.pop_front(1);
        } else if (hdr.ctl.op == 3) {
            hdr.s.push_front(2);
        } else if (hdr.ctl.op == 4) {
            write_at(hdr.ctl.idx, hdr.ctl.val);
            hdr.ctl.res = hdr.s[hdr.ctl.idx].v;
        } else if (hdr.ctl.op == 5) {
            hdr.extra = hdr.s[1];
            hdr.s[1].setInvalid();
        } else if (hdr.ctl.op == 6) {
            hdr.s[3] = hdr.s[0];
        }
        if (hdr.s[3].isValid()) {
            hdr.ctl.res = hdr.ctl.res | 0x80;
        }
    }
}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers hdr) {
    apply { pkt.emit(hdr.ctl); pkt.emit(hdr.s); pkt.emit(hdr.extra); }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
