"""P4Info as p4c writes it: ids follow p4c's scheme (prefix << 24 |
jenkins_one_at_a_time(name) & 0xFFFFFF), checked against ids published with the P4
tutorials; names, aliases, key names, direct resources, documentation and type_info.

Fixed in the tree while these were written: directly called actions, aliases,
initial_default_action, doc/type_info, key names, inline profiles, field @id, value-set
@match, signed registers, @hidden, @pkginfo.
"""

from __future__ import annotations

import re
from pathlib import Path

from .compile_helpers import compile_source

P4_DIR = Path(__file__).resolve().parents[2] / "p4"


def _jenkins(name: str) -> int:
    h = 0
    for c in name.encode():
        h = (h + c) & 0xFFFFFFFF
        h = (h + (h << 10)) & 0xFFFFFFFF
        h ^= h >> 6
    h = (h + (h << 3)) & 0xFFFFFFFF
    h ^= h >> 11
    return (h + (h << 15)) & 0xFFFFFFFF


_PREFIX = dict(action=0x01, table=0x02, value_set=0x03, controller_header=0x04,
               action_profile=0x11, counter=0x12, direct_counter=0x13, meter=0x14,
               direct_meter=0x15, register=0x16, digest=0x17)


def _pid(kind: str, name: str) -> int:
    return (_PREFIX[kind] << 24) | (_jenkins(name) & 0xFFFFFF)


def _p4info(tmp_path: Path, program: Path | str, name: str = "prog"):
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    source = program.read_text() if isinstance(program, Path) else program
    _, r = compile_source(tmp_path, name, source, p4info=True)
    assert r.returncode == 0, r.stderr
    info = p4info_pb2.P4Info()
    text_format.Parse((tmp_path / f"{name}.txtpb").read_text(), info)
    return info


def _by_name(items):
    return {x.preamble.name: x for x in items}


def test_jenkins_matches_published_tutorial_ids():
    # ids in the P4 tutorials' p4runtime exercise p4info (p4c output)
    published = {
        ("table", "MyIngress.ipv4_lpm"): 37375156,
        ("table", "MyIngress.myTunnel_exact"): 35862311,
        ("action", "NoAction"): 21257015,
        ("action", "MyIngress.drop"): 25652968,
        ("action", "MyIngress.ipv4_forward"): 28792405,
        ("action", "MyIngress.myTunnel_ingress"): 24181246,
        ("action", "MyIngress.myTunnel_forward"): 27454791,
        ("action", "MyIngress.myTunnel_egress"): 33029817,
        ("counter", "MyIngress.ingressTunnelCounter"): 315557958,
        ("counter", "MyIngress.egressTunnelCounter"): 312374841,
    }
    for (kind, name), pid in published.items():
        assert _pid(kind, name) == pid, name


def test_p4info_tutorial_tunnel_names(tmp_path):
    info = _p4info(tmp_path, P4_DIR / "tutorials" / "fid_tunnel_qos.p4")
    tables, actions, counters = _by_name(info.tables), _by_name(info.actions), _by_name(info.counters)
    assert tables["MyIngress.ipv4_lpm"].preamble.id == 37375156
    assert tables["MyIngress.ipv4_lpm"].preamble.alias == "ipv4_lpm"
    assert tables["MyIngress.myTunnel_exact"].preamble.id == 35862311
    assert actions["NoAction"].preamble.id == 21257015
    assert actions["MyIngress.drop"].preamble.id == 25652968
    assert actions["MyIngress.myTunnel_ingress"].preamble.id == 24181246
    assert actions["MyIngress.myTunnel_forward"].preamble.id == 27454791
    assert actions["MyIngress.myTunnel_egress"].preamble.id == 33029817
    assert counters["MyIngress.ingressTunnelCounter"].preamble.id == 315557958
    assert counters["MyIngress.egressTunnelCounter"].preamble.id == 312374841
    assert counters["MyIngress.ingressTunnelCounter"].size == 65536
    assert counters["MyIngress.ingressTunnelCounter"].spec.unit == 3  # BOTH
    lpm = tables["MyIngress.ipv4_lpm"]
    [mf] = lpm.match_fields
    assert (mf.id, mf.name, mf.bitwidth, mf.match_type) == (1, "hdr.ipv4.dstAddr", 32, 3)  # LPM
    assert [r.id for r in lpm.action_refs] == [24181246, 25652968, 21257015]
    eg = actions["MyIngress.myTunnel_egress"]
    assert [(p.id, p.name, p.bitwidth) for p in eg.params] == [(1, "dstAddr", 48), (2, "port", 9)]
    qos = tables["MyIngress.qos"]
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in qos.match_fields] == [
        (1, "hdr.ipv4.protocol", 8, 4), (2, "hdr.ipv4.diffserv", 6, 4)]  # TERNARY


def test_p4info_objects(tmp_path):
    info = _p4info(tmp_path, P4_DIR / "language" / "fid_p4info.p4")
    tables, actions = _by_name(info.tables), _by_name(info.actions)
    assert tables["MyIngress.ipv4_lpm"].preamble.id == 37375156
    assert actions["MyIngress.ipv4_forward"].preamble.id == 28792405
    assert [(p.id, p.name, p.bitwidth) for p in actions["MyIngress.ipv4_forward"].params] == [
        (1, "dstAddr", 48), (2, "port", 9)]
    # @id(0x200abcd) keeps its prefix; @name without a dot stays local, with a dot global
    acl = tables["MyIngress.acl"]
    assert acl.preamble.id == 0x0200ABCD
    assert actions["MyIngress.acl_permit"].preamble.id == _pid("action", "MyIngress.acl_permit")
    assert actions["global_deny"].preamble.id == _pid("action", "global_deny")
    assert [m.name for m in acl.match_fields] == ["src", "hdr.ipv4.$valid$", "hdr.ipv4.dstAddr[31:16]"]
    assert [m.bitwidth for m in acl.match_fields] == [32, 1, 16]
    # direct counter / meter, meter, counter, register, selector, value set, digest
    [dc] = info.direct_counters
    assert (dc.preamble.name, dc.preamble.id) == ("MyIngress.acl_counter",
                                                  _pid("direct_counter", "MyIngress.acl_counter"))
    assert dc.direct_table_id == acl.preamble.id
    assert list(acl.direct_resource_ids) == [dc.preamble.id]
    [dm] = info.direct_meters
    assert dm.preamble.id == _pid("direct_meter", "MyIngress.lpm_meter")
    assert dm.direct_table_id == 37375156
    [m] = info.meters
    assert (m.preamble.id, m.size) == (_pid("meter", "MyIngress.port_meter"), 16)
    [c] = info.counters
    assert (c.preamble.id, c.size) == (_pid("counter", "MyIngress.fwd"), 8)
    [reg] = info.registers
    assert (reg.preamble.id, reg.size) == (_pid("register", "MyEgress.byte_cnt_reg"), 16)
    assert reg.type_spec.bitstring.bit.bitwidth == 32
    [ap] = info.action_profiles
    assert ap.preamble.id == _pid("action_profile", "MyIngress.ecmp_selector")
    assert ap.with_selector and ap.size == 64
    assert list(ap.table_ids) == [tables["MyIngress.ecmp"].preamble.id]
    assert tables["MyIngress.ecmp"].implementation_id == ap.preamble.id
    assert [mf.name for mf in tables["MyIngress.ecmp"].match_fields] == ["hdr.ipv4.dstAddr"]
    [vs] = info.value_sets
    assert (vs.preamble.name, vs.preamble.id, vs.size) == (
        "MyParser.type_vs", _pid("value_set", "MyParser.type_vs"), 4)
    [dg] = info.digests
    assert (dg.preamble.name, dg.preamble.id) == (
        "mac_learn_digest_t", _pid("digest", "mac_learn_digest_t"))
    # controller headers: id from the type name, name from the annotation, fields 1..N
    cpm = _by_name(info.controller_packet_metadata)
    pin, pout = cpm["packet_in"], cpm["packet_out"]
    assert pin.preamble.id == _pid("controller_header", "packet_in_header_t")
    assert pout.preamble.id == _pid("controller_header", "packet_out_header_t")
    assert [(f.id, f.name, f.bitwidth) for f in pout.metadata] == [
        (1, "egress_port", 9), (2, "mcast_grp", 16), (3, "_pad", 7)]


def test_p4info_ids_all_follow_the_hash(tmp_path):
    info = _p4info(tmp_path, P4_DIR / "tutorials" / "fid_ecmp.p4")
    for t in info.tables:
        assert t.preamble.id == _pid("table", t.preamble.name)
    for a in info.actions:
        assert a.preamble.id == _pid("action", a.preamble.name)
    for r in info.registers:
        assert r.preamble.id == _pid("register", r.preamble.name)


def test_p4info_lists_directly_called_actions(tmp_path):
    info = _p4info(tmp_path, P4_DIR / "language" / "fid_p4info.p4")
    actions = _by_name(info.actions)
    assert actions["MyIngress.learn"].preamble.id == _pid("action", "MyIngress.learn")
    assert actions["MyIngress.only_direct"].preamble.id == _pid("action", "MyIngress.only_direct")


def test_p4info_alias_unique_across_kinds(tmp_path):
    info = _p4info(tmp_path, P4_DIR / "language" / "fid_p4info.p4")
    assert _by_name(info.actions)["MyEgress.fwd"].preamble.alias == "MyEgress.fwd"
    assert _by_name(info.counters)["MyIngress.fwd"].preamble.alias == "MyIngress.fwd"


def test_p4info_initial_default_action(tmp_path):
    info = _p4info(tmp_path, P4_DIR / "language" / "fid_p4info.p4")
    lpm = _by_name(info.tables)["MyIngress.ipv4_lpm"]
    assert lpm.HasField("initial_default_action")
    assert lpm.initial_default_action.action_id == 25652968  # MyIngress.drop


_TYPED_PROGRAM = """#include <core.p4>
#include <v1model.p4>
enum bit<8> Kind { A = 1, B = 2 }
type bit<16> Port_t;
header h_t { Kind k; bit<16> p; }
struct headers { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    @brief("sets the kind") @my_anno("x")
    action setk(Kind k, Port_t p) { hdr.h.k = k; hdr.h.p = (bit<16>)p; }
    @description("classifier table")
    table t { key = { hdr.h.k : exact; } actions = { setk; NoAction; } default_action = NoAction(); }
    apply { sm.egress_spec = 1; t.apply(); }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_p4info_documentation(tmp_path):
    info = _p4info(tmp_path, _TYPED_PROGRAM, "typed")
    setk = _by_name(info.actions)["I.setk"]
    assert setk.preamble.doc.brief == "sets the kind"
    assert list(setk.preamble.annotations) == ['@my_anno("x")']
    t = _by_name(info.tables)["I.t"]
    assert t.preamble.doc.description == "classifier table"
    assert list(t.preamble.annotations) == []


def test_p4info_type_info(tmp_path):
    info = _p4info(tmp_path, _TYPED_PROGRAM, "typed")
    setk = _by_name(info.actions)["I.setk"]
    assert [(p.name, p.bitwidth) for p in setk.params] == [("k", 8), ("p", 16)]
    assert setk.params[1].type_name.name == "Port_t"
    nt = info.type_info.new_types["Port_t"]
    assert nt.original_type.bitstring.bit.bitwidth == 16
    se = info.type_info.serializable_enums["Kind"]
    assert se.underlying_type.bitwidth == 8
    assert [(m.name, m.value) for m in se.members] == [("A", b"\x01"), ("B", b"\x02")]


_KEY_NAME_PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; @name("bee") bit<8> b; }
struct headers { h_t h; h_t[2] s; }
struct meta_t { @name("renamed") bit<8> x; }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    table t {
        key = { %s }
        actions = { NoAction; }
    }
    apply { sm.egress_spec = 1; t.apply(); }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def _key_names(tmp_path, keys: str) -> list[str]:
    info = _p4info(tmp_path, _KEY_NAME_PROGRAM % keys, "keys")
    return [m.name for m in _by_name(info.tables)["I.t"].match_fields]


def test_p4info_key_names(tmp_path):
    assert _key_names(tmp_path, "hdr.s[1].a : exact; hdr.h.a[3:0] : ternary; "
                                "hdr.h.isValid() : exact; sm.ingress_port : exact; "
                                "hdr.h.a : exact @name(\"my_key\");") == [
        "hdr.s[1].a", "hdr.h.a[3:0]", "hdr.h.$valid$", "sm.ingress_port", "my_key"]


def test_p4info_key_name_mask_base(tmp_path):
    assert _key_names(tmp_path, "hdr.h.a & 0xF0 : exact;") == ["hdr.h.a & 0xf0"]


def test_p4info_key_name_field_annotation(tmp_path):
    assert _key_names(tmp_path, "hdr.h.b : exact; m.x : exact;") == ["hdr.h.bee", "m.renamed"]


def test_complex_key_needs_name(tmp_path):
    src, r = compile_source(tmp_path, "castkey", _KEY_NAME_PROGRAM % "(bit<16>)hdr.h.a : exact;")
    assert r.returncode == 1
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: ", r.stderr.strip().splitlines()[0])


_INLINE_PROFILE_PROGRAM = """#include <core.p4>
#include <v1model.p4>
struct H { }
struct M { bit<32> h1; }
parser P(packet_in pk, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { transition accept; }
}
control Ing(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    table plain {
        key = { }
        actions = { drop; NoAction; }
        @name("prof") implementation = action_profile(32w64);
    }
    table weighted {
        key = { meta.h1 : selector; }
        actions = { drop; NoAction; }
        @name("wsel") @max_group_size(50) implementation = action_selector(HashAlgorithm.crc16, 32w256, 32w8);
    }
    apply { plain.apply(); weighted.apply(); }
}
control Eg(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control Dep(packet_out pk, in H hdr) { apply { } }
control VC(inout H hdr, inout M meta) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
V1Switch(P(), VC(), Ing(), Eg(), CC(), Dep()) main;
"""


def test_p4info_inline_action_profile(tmp_path):
    info = _p4info(tmp_path, _INLINE_PROFILE_PROGRAM, "inline_prof")
    profiles = _by_name(info.action_profiles)
    assert set(profiles) == {"prof", "wsel"}
    assert profiles["prof"].preamble.id == _pid("action_profile", "prof")
    w = profiles["wsel"]
    assert w.preamble.id == _pid("action_profile", "wsel")
    assert (w.with_selector, w.size, w.max_group_size) == (True, 256, 50)
    assert w.HasField("sum_of_weights")
    tables = _by_name(info.tables)
    assert tables["Ing.plain"].implementation_id == profiles["prof"].preamble.id


_FIELD_ID_PROGRAM = """#include <core.p4>
#include <v1model.p4>
@controller_header("packet_in")
header pin_t { @id(3) bit<9> port; bit<7> pad; }
header h_t { bit<8> a; bit<8> b; }
struct headers { pin_t pin; h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    action a(@id(5) bit<8> x, bit<8> y, bit<8> z) { hdr.h.a = x + y + z; }
    table t { key = { hdr.h.a : exact @id(7); hdr.h.b : exact; } actions = { a; } }
    apply { sm.egress_spec = 1; t.apply(); }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.pin); pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_p4info_field_id_annotations(tmp_path):
    info = _p4info(tmp_path, _FIELD_ID_PROGRAM, "field_ids")
    t = _by_name(info.tables)["I.t"]
    assert [(m.id, m.name) for m in t.match_fields] == [(7, "hdr.h.a"), (2, "hdr.h.b")]
    a = _by_name(info.actions)["I.a"]
    assert [(p.id, p.name) for p in a.params] == [(5, "x"), (2, "y"), (3, "z")]
    pin = _by_name(info.controller_packet_metadata)["packet_in"]
    assert [(f.id, f.name) for f in pin.metadata] == [(3, "port"), (2, "pad")]


_VALUE_SET_PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
struct headers { h_t h; }
struct meta_t { }
struct vsk_t { @match(ternary) bit<8> a; bit<16> b; }
parser P(packet_in pkt, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) simple;
    value_set<vsk_t>(8) pair;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.b) { simple: s2; default: s2; }
    }
    state s2 { transition select(hdr.h.a, hdr.h.b) { pair: accept; default: accept; } }
}
control VC(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control CC(inout headers hdr, inout meta_t m) { apply { } }
control D(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def test_p4info_value_set_basics(tmp_path):
    info = _p4info(tmp_path, _VALUE_SET_PROGRAM, "vsets")
    vs = _by_name(info.value_sets)
    assert vs["P.simple"].preamble.id == _pid("value_set", "P.simple")
    assert (vs["P.simple"].size, vs["P.pair"].size) == (4, 8)
    assert [(m.id, m.bitwidth) for m in vs["P.simple"].match] == [(1, 16)]
    assert [(m.id, m.name, m.bitwidth) for m in vs["P.pair"].match] == [(1, "a", 8), (2, "b", 16)]


def test_p4info_value_set_match_kinds(tmp_path):
    info = _p4info(tmp_path, _VALUE_SET_PROGRAM, "vsets")
    vs = _by_name(info.value_sets)
    assert [m.match_type for m in vs["P.pair"].match] == [4, 2]  # TERNARY, EXACT
    assert vs["P.simple"].match[0].name == ""


def test_p4info_signed_register_type(tmp_path):
    program = _FIELD_ID_PROGRAM.replace(
        "action a(", "register<int<16>>(4) sreg;\n    action a(").replace(
        "t.apply(); }", "t.apply(); sreg.write(0, 16s-1); }")
    info = _p4info(tmp_path, program, "sreg")
    [reg] = info.registers
    assert reg.type_spec.bitstring.HasField("int")
    assert reg.type_spec.bitstring.int.bitwidth == 16


def test_p4info_hidden(tmp_path):
    program = _FIELD_ID_PROGRAM.replace(
        "action a(", "@hidden action hact() { }\n    @hidden table ht { key = { hdr.h.a : exact; } "
        "actions = { hact; } }\n    action a(").replace("t.apply(); }", "t.apply(); ht.apply(); }")
    info = _p4info(tmp_path, program, "hidden")
    assert "I.ht" not in _by_name(info.tables)
    assert "I.hact" not in _by_name(info.actions)


def test_p4info_pkginfo(tmp_path):
    program = _FIELD_ID_PROGRAM.replace(
        "V1Switch(P()", '@pkginfo(name="demo.p4", version="1.2", organization="lab") '
        '@brief("a demo")\nV1Switch(P()')
    info = _p4info(tmp_path, program, "pkginfo")
    assert (info.pkg_info.name, info.pkg_info.version, info.pkg_info.organization) == (
        "demo.p4", "1.2", "lab")
    assert info.pkg_info.doc.brief == "a demo"
    assert info.pkg_info.arch == "v1model"
