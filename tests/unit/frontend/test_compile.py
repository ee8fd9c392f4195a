"""Front end: P4Info, ProgramInfo, error reporting and the compile CLI."""

import os
import re

import pytest

from p4emu.compile_cmd import main as compile_main
from p4emu.frontend import P4CompileError, compile_file
from p4emu.p4info import assign_ids, jenkins_one_at_a_time
from p4emu.runtime.match import Exact, Ternary

PROGRAMS = os.path.join(os.path.dirname(__file__), "programs")


def prog(name):
    return os.path.join(PROGRAMS, name)


def test_ids_match_p4c():
    ids = assign_ids([("table", "MyIngress.ipv4_lpm", None), ("action", "NoAction", None)])
    assert ids[("table", "MyIngress.ipv4_lpm")] == 37375156
    assert ids[("action", "NoAction")] == 21257015


def test_id_collision_and_explicit_id():
    h = jenkins_one_at_a_time("a") & 0xFFFFFF
    ids = assign_ids([("action", "a", None), ("action", "b", h)])
    assert ids[("action", "b")] == (1 << 24) | h
    assert ids[("action", "a")] == (1 << 24) | (h + 1)


def test_l3_p4info():
    r = compile_file(prog("l3.p4"))
    t = r.info.by_name("tables", "RouterIngress.ipv4_lpm")
    assert [k.name for k in t.keys] == ["hdr.ipv4.dstAddr"]
    assert t.keys[0].match_kind == "lpm" and t.keys[0].bitwidth == 32
    fwd = r.info.by_name("actions", "RouterIngress.ipv4_forward")
    assert [(p.name, p.bitwidth) for p in fwd.params] == [("dstAddr", 48), ("port", 9)]
    assert t.default_action_id == r.info.by_name("actions", "RouterIngress.drop").id
    pt = r.p4info.tables[0]
    assert pt.preamble.alias == "ipv4_lpm" and pt.match_fields[0].match_type == 3  # LPM
    assert {a.preamble.name for a in r.p4info.actions} == {
        "NoAction", "RouterIngress.drop", "RouterIngress.ipv4_forward"}


def test_features_const_entries_and_externs():
    r = compile_file(prog("features.p4"))
    t = r.info.by_name("tables", "I.tern")
    assert [k.name for k in t.keys] == ["hdr.small.a", "small_valid"]
    assert t.is_const and t.direct_counter == "I.dctr"
    assert t.const_entries[0].match == (Ternary(0x10, 0xF0), Exact(1))
    assert t.const_entries[1].match == (None, Exact(1))
    assert [e.priority for e in t.const_entries] == [1, 2]
    assert r.info.by_name("registers", "I.regs").bitwidth == 32
    assert r.info.by_name("counters", "I.dctr").direct_table_id == t.id
    assert r.info.by_name("value_sets", "P.extra_types").size == 4


@pytest.mark.parametrize("body, message", [
    ("control X() { apply { bit<8> x = ; } }", "4:34: error: syntax error, expected an expression, found ';'"),
    ("control X() { apply { y = 1; } }", "4:23: error: y: not declared"),
    ("control X() { apply { bool b = 8w1; } }", "4:32: error: type mismatch: expected bool, got bit<8>"),
])
def test_errors_are_located(tmp_path, body, message):
    src = tmp_path / "bad.p4"
    src.write_text("#include <core.p4>\n#include <v1model.p4>\n\n" + body + "\n")
    with pytest.raises(P4CompileError) as ei:
        r = compile_file(str(src))
        del r
    assert str(ei.value) == f"{src}:{message}"


def test_hash_random_is_unsupported(tmp_path):
    text = open(prog("l3.p4")).read().replace(
        "ipv4_lpm.apply();",
        "ipv4_lpm.apply(); hash(meta.unused, HashAlgorithm.random, 8w0, {hdr.ipv4.ttl}, 8w4);")
    src = tmp_path / "r.p4"
    src.write_text(text.replace("#include <core.p4>", "#include <core.p4>\n"))
    with pytest.raises(P4CompileError, match="unsupported: HashAlgorithm.random"):
        compile_file(str(src))


def test_cli_writes_p4info_and_ir(tmp_path, capsys):
    p4info = tmp_path / "out.p4info.txtpb"
    ir = tmp_path / "out.json"
    assert compile_main([prog("l3.p4"), "--p4runtime-files", str(p4info), "-o", str(ir)]) == 0
    assert 'name: "RouterIngress.ipv4_lpm"' in p4info.read_text()
    assert ir.read_bytes().startswith(b'{"format":"p4emu-preprocessed/1"')


def test_cli_error_exit_code(tmp_path, capsys):
    src = tmp_path / "bad.p4"
    src.write_text("header h { bit<8> x }\n")
    assert compile_main([str(src)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{src}:1:21: error:") and "\n" == err[-1] and err.count("\n") == 1


def test_control_plane_objects():
    r = compile_file(prog("p4rt.p4"))
    info, p4 = r.info, r.p4info
    (pin,) = [h for h in info.controller_headers.values() if h.name == "packet_in"]
    assert [(f.id, f.name, f.bitwidth) for f in pin.fields] == [(1, "ingress_port", 9), (2, "pad", 7)]
    assert pin.id >> 24 == 0x04
    assert info.by_name("actions", "PI.set_port").id == 0x01000042
    assert info.by_name("actions", "global_drop").id >> 24 == 0x01
    acl = info.by_name("tables", "PI.acl_table")
    assert [(k.name, k.match_kind) for k in acl.keys] == [("hdr.ethernet.dstAddr", "ternary"), ("etype", "range")]
    assert [r.scope for r in acl.actions] == ["TABLE_AND_DEFAULT", "TABLE_AND_DEFAULT", "DEFAULT_ONLY"]
    assert info.by_name("counters", "PI.acl_counter").direct_table_id == acl.id
    assert info.by_name("counters", "PI.port_counter").size == 16
    assert info.by_name("meters", "PI.port_meter").unit == "bytes"
    ecmp = info.by_name("tables", "PI.ecmp")
    sel = info.by_name("action_profiles", "PI.sel")
    assert sel.with_selector and sel.selector_algorithm == "crc32" and sel.table_ids == (ecmp.id,)
    assert [k.match_kind for k in ecmp.keys] == ["exact", "selector"]
    (pt,) = [t for t in p4.tables if t.preamble.name == "PI.ecmp"]
    assert [m.name for m in pt.match_fields] == ["hdr.ethernet.dstAddr"]  # selector keys hidden
    assert pt.implementation_id == sel.id
    (dg,) = info.digests.values()
    assert dg.name == "learn_t" and [f.bitwidth for f in dg.fields] == [48, 9]
    assert [d.preamble.name for d in p4.digests] == ["learn_t"]
    assert {c.preamble.name for c in p4.controller_packet_metadata} == {"packet_in", "packet_out"}


def test_syntax_corners():
    r = compile_file(prog("syntax.p4"))
    t = r.info.by_name("tables", "ig.t")
    act = r.info.by_name("actions", "ig.ig.act")
    assert act.id == 0x01000123
    assert [p.name for p in act.params] == ["port", "type"]  # @name on a parameter
    assert [k.name for k in t.keys] == ["mac", "meta.key"]
    # BMv2 JSON priority is the position unless @priority: `priority = 10` never reaches it
    assert [e.priority for e in t.const_entries] == [1, 2]
    assert t.const_default_action and not t.is_const
    pt = r.p4info.tables[0]
    assert pt.has_initial_entries and not pt.is_const_table


def test_device_config_round_trip_and_bad_configs():
    from p4emu.compiler import load_preprocessed

    r = compile_file(prog("l3.p4"))
    loaded = load_preprocessed(r.ir)
    assert loaded.info.tables == r.info.tables and loaded.info.actions == r.info.actions
    for bad in (b"", b"not json", b"[]", b'{"format": "other"}',
                b'{"format": "p4emu-preprocessed/1", "files": [], "lines": [[5, 1, "x"]]}'):
        with pytest.raises(P4CompileError, match="invalid p4emu device config"):
            load_preprocessed(bad)


def test_device_config_under_its_old_format_name_still_loads():
    from p4emu.compiler import load_preprocessed

    r = compile_file(prog("l3.p4"))
    old = r.ir.replace(b'"p4emu-preprocessed/1"', b'"p4emu-ir/1"', 1)
    assert load_preprocessed(old).info.tables == r.info.tables


SKELETON = """#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; @name("bee") bit<8> b; }}
struct headers {{ h_t h; }}
struct meta_t {{ bit<8> m; }}
{globals}
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control VC(inout headers hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    {locals}
    apply {{ {body} }}
}}
control E(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control CC(inout headers hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
"""


def compile_snippet(tmp_path, globals="", locals="", body=""):
    src = tmp_path / "snippet.p4"
    src.write_text(SKELETON.format(globals=globals, locals=locals, body=body))
    return compile_file(str(src))


@pytest.mark.parametrize("snippet, message", [
    (dict(locals="action a(in bit<8> x) { x = 1; }", body="a(1);"), "cannot assign to x"),
    (dict(locals="action a(bit<8> x) { x = 1; }", body="a(1);"), "cannot assign to x"),
    (dict(locals="action a() {} action a() {}", body=""), "a: duplicate declaration"),
    (dict(body="bit<8> v; bit<8> v;"), "v: duplicate declaration"),
    (dict(globals="struct s_t { bit<8> x; } struct s_t { bit<8> y; }"), "s_t: duplicate declaration"),
    (dict(locals="table t { key = { hdr.h.a: exact; } actions = { NoAction; } }",
          body="t.apply(); t.apply();"), "table I.t has multiple successors"),
    (dict(locals="table t { key = { hdr.h.a: exact; } }"), "has no actions property"),
    (dict(locals="table t { key = { (bit<16>)hdr.h.a: exact; } actions = { NoAction; } }",
          body="t.apply();"), "Complex key expression requires a @name annotation"),
    (dict(body="meta.m = hdr.h.a / 0;"), "division by zero"),
    (dict(body="bool b = (bool)meta.m;"), "cannot cast bit<8> to bool"),
    (dict(body="mark_to_drop(meta);"), "expected standard_metadata_t"),
    (dict(locals="action a() { switch (meta.m) { 1: {} } }", body="a();"), "not allowed in actions"),
])
def test_semantic_errors(tmp_path, snippet, message):
    with pytest.raises(P4CompileError, match=message) as ei:
        compile_snippet(tmp_path, **snippet)
    assert re.match(r".*snippet\.p4:\d+:\d+: error: ", str(ei.value))


def test_key_names_invalid_header_and_default_values(tmp_path):
    r = compile_snippet(
        tmp_path, globals="struct two_t { bit<8> x; bit<8> y; }",
        locals="table t { key = { hdr.h.a & 0xF0: exact; hdr.h.b: exact; hdr.h.a[3:0]: exact; } "
               "actions = { NoAction; } }",
        body="t.apply(); two_t p = { x = 1, ... }; meta.m = p.y; if (hdr.h == {#}) { hdr.h = {#}; }")
    t = r.info.by_name("tables", "I.t")
    assert [k.name for k in t.keys] == ["hdr.h.a & 0xf0", "hdr.h.bee", "hdr.h.a[3:0]"]
