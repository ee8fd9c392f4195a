"""Verdicts p4emu now shares with p4c on programs from p4c's own testdata (p4_16_samples,
p4_16_errors): each case is a small program for one reason, with p4c's message (or its
gist) for a refusal. Programs p4c accepts that need more than a compile check are files
in p4c_verdicts/ with an STF test of the behaviour (expected bytes worked out by hand).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4emu.stf.cli import build_device, run_files

from .compile_helpers import compile_source
from .compile_helpers import v1model_program as _program

FILES = Path(__file__).parent / "p4c_verdicts"
STFS = sorted(FILES.glob("*.stf"))

_T = ("action a() { } action b() { } "
      "table t { key = { meta.m: exact; } actions = { a; } default_action = a; }")
_ENTRIES = ("action s(bit<8> v) { meta.m = v; } table t { key = { %s } actions = { s; } "
            "%s entries = { %s } }")

# name -> (program pieces, message fragment); p4c's testdata program in the comment
REFUSED = {
    # outside an annotation body a character that is no P4 token is still an error
    "stray_character": (dict(body="meta.m = 1 ` 2;"), "unexpected character '`'"),
    # issue2835-bmv2.p4
    "table_apply_in_bound_action_argument": (
        dict(locals="table t2 { key = { meta.m: exact; } actions = { NoAction; } } "
                    "action a(inout bit<8> v) { v = 1; } "
                    "table t { key = { meta.m: exact; } actions = { "
                    "a(t2.apply().hit ? meta.m : hdr.h.a); } }", body="t.apply();"),
        "t2.apply(): table invocation in action argument"),
    # issue2283_2-bmv2.p4: p4c parses this annotation's body
    "p4runtime_translation_bad_type": (
        dict(globals='@p4runtime_translation("p4.org/psa/v1/PortId_t", bool) type bit<9> pid_t;'),
        "syntax error, unexpected 'bool'"),
    # issue2373.p4
    "parser_never_terminates": (
        dict(states="state start { transition s1; } state s1 { transition s2; } "
                    "state s2 { transition s1; }"),
        "parser P: Parser never reaches accept or reject state"),
    # actions-with-duplicate-control-plane-names1.p4, issue1949-bmv2.p4
    "duplicate_action_control_plane_name": (
        dict(globals="action foo() { }",
             locals='@name(".foo") action a() { } table t { key = { meta.m: exact; } '
                    "actions = { a; foo; } }", body="t.apply();"),
        "foo: conflicting control plane name"),
    # issue1803_same_table_name.p4
    "duplicate_table_name_in_p4info": (
        dict(globals='control C(inout bit<8> k) { @name(".t0") table t0 { key = { k: exact; } '
                     "actions = { NoAction; } } apply { t0.apply(); } }",
             locals="C() c1; C() c2;", body="c1.apply(meta.m); c2.apply(hdr.h.a);"),
        "Name 't0' is used for multiple table objects in the P4Info message"),
    # issue388.p4, minWidth.p4
    "control_instance_at_top_level": (
        dict(globals="control C() { apply { } }\nC() c;", body="c.apply();"),
        "c: cannot instantiate at top-level"),
    # issue774-2.p4
    "extract_dont_care_without_type": (
        dict(states="state start { pkt.extract(_); pkt.extract(hdr.h); transition accept; }"),
        "extract: `_` is not allowed here"),
    # incorrect-label.p4
    "switch_label_of_another_table": (
        dict(locals=_T + " table t2 { actions = { b; } default_action = b; }",
             body="switch (t.apply().action_run) { a: { } b: { } } t2.apply();"),
        "b is not a legal label (action name)"),
    # issue2354.p4
    "directional_int_parameter": (
        dict(locals="action a(in int v) { meta.m = (bit<8>)v; }", body="a(1);"),
        "v: parameters with type int must be directionless"),
    # issue413.p4
    "action_call_in_parser": (
        dict(globals="action a() { }",
             states="state start { pkt.extract(hdr.h); a(); transition accept; }"),
        "a: Action calls are not allowed within parsers"),
    # issue-2123_e.p4
    "select_range_not_constant": (
        dict(states="state start { pkt.extract(hdr.h); transition select(hdr.h.a) { "
                    "1 .. hdr.h.a: accept; default: accept; } }"),
        "hdr.h.a: Range boundaries must be a compile-time constants."),
    "select_value_not_constant": (
        dict(states="state start { pkt.extract(hdr.h); transition select(hdr.h.b) { "
                    "hdr.h.b: accept; default: accept; } }"),
        "hdr.h.b: must evaluate to a compile-time constant"),
    # issue122.p4
    "function_call_in_select_keyset": (
        dict(globals="bit<8> f() { return 1; }",
             states="state start { pkt.extract(hdr.h); transition select(hdr.h.a) { "
                    "f(): accept; default: accept; } }"),
        "f(): no function calls allowed in this context"),
    # issue1580.p4
    "defaultonly_action_in_entries": (
        dict(locals="action s(bit<8> v) { meta.m = v; } table t { key = { meta.m: exact; } "
                    "actions = { s; @defaultonly NoAction; } const entries = { 1 : NoAction(); } }",
             body="t.apply();"),
        "NoAction: Action marked with defaultonly used in table entries"),
    # init-entries-error1-bmv2.p4
    "entry_priority_on_exact_keys": (
        dict(locals=_ENTRIES % ("meta.m: exact;", "", "priority = 5: 1 : s(1);"),
             body="t.apply();"),
        "key match type does not require priorities, but some are specified"),
    # init-entries-error2-bmv2.p4
    "first_entry_without_priority": (
        dict(locals=_ENTRIES % ("meta.m: ternary;", "",
                                "1 &&& 1 : s(1); priority = 5: 2 &&& 2 : s(2);"),
             body="t.apply();"),
        "entry must have a priority"),
    # init-entries-error3-bmv2.p4: with largest_priority_wins the next is 5 - 10
    "entry_priority_underflow": (
        dict(locals=_ENTRIES % ("meta.m: ternary;", "priority_delta = 10;",
                                "priority = 5: 1 &&& 1 : s(1); 2 &&& 2 : s(2);"),
             body="t.apply();"),
        "t Overflow in priority computation"),
    "const_entries_with_priorities": (
        dict(locals=_ENTRIES.replace("entries =", "const entries =")
             % ("meta.m: ternary;", "", "priority = 5: 1 &&& 1 : s(1);"), body="t.apply();"),
        "Table with 'const' entries cannot have priorities"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_as_p4c_does(tmp_path, name):
    pieces, message = REFUSED[name]
    src, r = compile_source(tmp_path, name, _program(**pieces))
    assert r.returncode == 1, (r.stdout, r.stderr)
    first = r.stderr.strip().splitlines()[0]
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: .*{re.escape(message)}", first), first


@pytest.mark.parametrize("version", ["-6419018", "20000101", "20180101", "20200408"])
def test_any_v1model_version_compiles(tmp_path, version):
    # issue5296_invalid_version.p4, issue5296_unknown_version.p4: p4c-bm2-ss 1.2.5 accepts
    # them (only its P4 printer, p4test's --toP4, checks the version: GetV1ModelVersion)
    # v1model.p4 sees the program's version: __v1model_version is it, as bit<32>
    body = ("sm.egress_spec = 1; hdr.h.a = __v1model_version[31:24]; "
            "hdr.h.b = __v1model_version[15:0];")
    source = _program(body=body).replace(
        "#include <v1model.p4>", f"#define V1MODEL_VERSION {version}\n#include <v1model.p4>")
    src, r = compile_source(tmp_path, "version", source)
    assert r.returncode == 0, r.stderr
    bits = (int(version) % 2**32).to_bytes(4, "big")
    assert _process(src, b"\x00\x00\x00") == [(1, bits[:1] + bits[2:])]


@pytest.mark.parametrize("stf", STFS, ids=[s.stem for s in STFS])
def test_accepted_and_runs_as_bmv2_would(stf: Path):
    results, errors = run_files(build_device(str(stf.with_suffix(".p4")), [], {}), [str(stf)])
    assert not errors, errors
    [result] = results
    assert result.ok and result.passed > 0, "\n".join(result.report_lines())


def _process(src: Path, data: bytes) -> list[tuple[int, bytes]]:
    """Compile `src` and process one packet from port 0 through its pipeline."""
    from p4emu.frontend import compile_file
    from p4emu.runtime.device import DeviceState
    from p4emu.v1model.pipeline import Pipeline

    program = compile_file(str(src)).program
    return Pipeline(program, DeviceState.from_program(program.info)).process(0, data)


def _compile_ok(tmp_path, name, pieces, p4info=False):
    src, r = compile_source(tmp_path, name, _program(**pieces), p4info=p4info)
    assert r.returncode == 0, r.stderr
    return src


def test_nameable_key_expressions_get_p4c_names(tmp_path):
    # control-hs-index-test6.p4, issue3374.p4: p4c names `a & b` and `s[i]` for any
    # nameable a, b, i (TableKeyNames); P4Info carries the names
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    _compile_ok(tmp_path, "keys", dict(
        locals="table t { key = { hdr.h.a & meta.m : exact; hdr.h.b : exact; } "
               "actions = { NoAction; } }", body="t.apply();"), p4info=True)
    info = text_format.Parse((tmp_path / "keys.txtpb").read_text(), p4info_pb2.P4Info())
    assert [m.name for m in info.tables[0].match_fields] == ["hdr.h.a & meta.m", "hdr.h.b"]


def test_one_element_list_as_the_keyset_of_one_key(tmp_path):
    # action-two-params.p4: `{ k }` is the keyset list of a one-key table
    from p4emu.frontend import compile_file

    src = _compile_ok(tmp_path, "list_key", dict(
        locals="action s(bit<8> v) { meta.m = v; } table t { key = { meta.m: exact; } "
               "actions = { s; } const entries = { {8w7} : s(1); (8w9) : s(2); } }",
        body="t.apply();"))
    t = compile_file(str(src)).info.by_name("tables", "I.t")
    assert [e.match[0].value for e in t.const_entries] == [7, 9]


def test_free_form_annotation_body(tmp_path):
    # free-form-annotation.p4: an annotation body is any tokens, even characters that
    # are no P4 token; outside annotations they stay errors (test_compile.py)
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    _compile_ok(tmp_path, "anno", dict(
        globals="@scrabble(\n  - That's it. Six by nine; 42 ` ?\n  0xdeadbeef\n)\n"
                "struct s_t { bit<8> f; }", body="digest<s_t>(1, { meta.m });"), p4info=True)
    # the annotation ends at its `)`: the struct after it is declared whole
    info = text_format.Parse((tmp_path / "anno.txtpb").read_text(), p4info_pb2.P4Info())
    assert [(m.name, m.type_spec.bitstring.bit.bitwidth)
            for m in info.type_info.structs["s_t"].members] == [("f", 8)]
    assert [d.preamble.name for d in info.digests] == ["s_t"]


def test_error_field_in_a_digest(tmp_path):
    # v1model-digest-containing-ser-enum.p4: an `error` member is P4Info type `error`
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2

    _compile_ok(tmp_path, "dg", dict(
        globals="struct d_t { error e; bit<8> v; }",
        body="digest<d_t>(1, { sm.parser_error, meta.m });"), p4info=True)
    info = text_format.Parse((tmp_path / "dg.txtpb").read_text(), p4info_pb2.P4Info())
    members = info.type_info.structs["d_t"].members
    assert members[0].type_spec.WhichOneof("type_spec") == "error"
    assert list(info.type_info.error.members)[:2] == ["NoError", "PacketTooShort"]


def test_plain_enum_in_hash_data_is_32_bits(tmp_path):
    # issue2201-bmv2.p4: p4c's BMv2 mid end makes plain enums bit<32> (EnumOn32Bits), so
    # identity of { color_t.C } is 0x00000002
    from p4emu.compiler import load_ir
    from p4emu.frontend import compile_file
    from p4emu.runtime.device import DeviceState
    from p4emu.v1model.pipeline import Pipeline

    src = _compile_ok(tmp_path, "enum_hash", dict(
        globals="enum color_t { A, B, C }",
        body="color_t c = color_t.C; bit<32> h; hash(h, HashAlgorithm.identity, 32w0, { c }, 32w1 << 31); "
             "hdr.h.b = h[15:0]; sm.egress_spec = 1;"))
    program = load_ir(compile_file(str(src)).ir)
    out = Pipeline(program, DeviceState.from_program(program.info)).process(0, b"\x00\x00\x00")
    assert out == [(1, b"\x00\x00\x02")]


@pytest.mark.parametrize("headers, message", [
    # no-header2-bmv2.p4: a bit<N> field in the headers struct
    ("struct headers { h_t h; bit<8> x; }",
     "headers: the type should be a struct of headers, stacks, or unions"),
    # issue1672-bmv2.p4: a header instead of a struct
    ("typedef h_t headers;", "h_t: expected type to be a struct"),
])
def test_bmv2_headers_type(tmp_path, headers, message):
    source = _program().replace("struct headers { h_t h; }", headers)
    source = source.replace("pkt.extract(hdr.h);", "").replace("pkt.emit(hdr.h);", "")
    src, r = compile_source(tmp_path, "headers", source)
    assert r.returncode == 1
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: {re.escape(message)}",
                    r.stderr.strip()), r.stderr


def test_nested_structs_of_headers_are_flattened_by_p4c(tmp_path):
    # p4c's NestedStructs pass runs before the headers-type check
    # and the nested header is parsed and emitted like any other
    source = (_program(body="sm.egress_spec = 1;")
              .replace("struct headers { h_t h; }",
                       "struct inner_t { h_t h2; } struct headers { h_t h; inner_t in_; }")
              .replace("pkt.extract(hdr.h);", "pkt.extract(hdr.h); pkt.extract(hdr.in_.h2);")
              .replace("pkt.emit(hdr.h);", "pkt.emit(hdr.in_.h2); pkt.emit(hdr.h);"))
    src, r = compile_source(tmp_path, "nested", source)
    assert r.returncode == 0, r.stderr
    assert _process(src, b"\x01\x00\x02\x03\x00\x04\x05") == [(1, b"\x03\x00\x04\x01\x00\x02\x05")]


def test_register_of_struct(tmp_path):
    # issue907-bmv2.p4: p4c 1.2.5 refuses a register of a struct in BMv2's back end (1.2.4
    # took it); a serializable enum is fine (register-serenum-bmv2.p4: bits by then)
    def source(locals_, body):
        return _program(locals=locals_, body=body).replace(
            "struct meta_t { bit<8> m; }", "struct r_t { bit<8> x; }\n"
                                           "enum bit<8> e_t { A = 1 }\n"
                                           "struct meta_t { bit<8> m; r_t s; }")

    src, r = compile_source(tmp_path, "local", source(
        "register<r_t>(4) r;", "r_t v = { 1 }; r.write(0, v); r.read(v, 0);"))
    assert r.returncode == 1
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: I.r: Only registers with bit or "
                    "int types are currently supported", r.stderr), r.stderr
    _, r = compile_source(tmp_path, "serenum", source(
        "register<e_t>(4) r;", "e_t v = e_t.A; r.write(0, v); r.read(v, 0);"))
    assert r.returncode == 0, r.stderr


def test_select_without_keys(tmp_path):
    # issue1291-bmv2.p4: `select()` has no keys; only a default (or `_`) case matches
    from p4emu.compiler import load_ir
    from p4emu.frontend import compile_file
    from p4emu.runtime.device import DeviceState
    from p4emu.v1model.pipeline import Pipeline

    src = _compile_ok(tmp_path, "empty_select", dict(
        states="state start { transition select() { default: parse_h; } } "
               "state parse_h { pkt.extract(hdr.h); transition accept; }",
        body="sm.egress_spec = 1; hdr.h.a = hdr.h.a + 1;"))
    program = load_ir(compile_file(str(src)).ir)
    out = Pipeline(program, DeviceState.from_program(program.info)).process(0, b"\x01\x00\x02")
    assert out == [(1, b"\x02\x00\x02")]


@pytest.mark.parametrize("args", ['"p4.org/psa/v1/PortId_t", 32', '"u", bit<32>', '"u", string',
                                  '"u"'])
def test_p4runtime_translation_forms(tmp_path, args):
    # the annotation parses and the type stays a bit<9> new type, in P4Info and on a packet
    # (p4emu's P4Info has no translated_type: the annotation is checked, not applied)
    from p4emu.frontend import compile_file

    src = _compile_ok(tmp_path, "tr", dict(
        globals=f"@p4runtime_translation({args}) type bit<9> pid_t;",
        locals="action s(pid_t p) { sm.egress_spec = (bit<9>)p; } table t { key = { meta.m: "
               "exact; } actions = { s; } default_action = s((pid_t)9w5); }",
        body="t.apply();"))
    p4info = compile_file(str(src)).p4info
    assert p4info.type_info.new_types["pid_t"].original_type.bitstring.bit.bitwidth == 9
    [action] = [a for a in p4info.actions if a.preamble.name == "I.s"]
    assert [(p.name, p.bitwidth, p.type_name.name) for p in action.params] == [("p", 9, "pid_t")]
    assert _process(src, b"\x01\x00\x02") == [(5, b"\x01\x00\x02")]


def test_indexed_part_select(tmp_path):
    # slice1.p4, array1.p4: `e[lo +: w]` is `e[lo + w - 1 : lo]`, read and written
    from p4emu.compiler import load_ir
    from p4emu.frontend import compile_file
    from p4emu.runtime.device import DeviceState
    from p4emu.v1model.pipeline import Pipeline

    src = _compile_ok(tmp_path, "plus_slice", dict(
        body="hdr.h.a = hdr.h.b[4 +: 8]; hdr.h.b[0+:4] = 4w0xF; sm.egress_spec = 1;"))
    program = load_ir(compile_file(str(src)).ir)
    out = Pipeline(program, DeviceState.from_program(program.info)).process(0, b"\x00\x12\x34")
    assert out == [(1, b"\x23\x12\x3f")]


def _with_compute(apply_body: str) -> str:
    return _program().replace("control CC(inout headers hdr, inout meta_t meta) { apply { } }",
                              "control CC(inout headers hdr, inout meta_t meta) { apply { "
                              + apply_body + " } }")


@pytest.mark.parametrize("name,apply_body,message", [
    # issue1765-bmv2.p4: a cast in the data of update_checksum
    ("cast", "update_checksum(true, { (bit<16>)hdr.h.a }, hdr.h.b, HashAlgorithm.csum16);",
     "Computations are not supported in update_checksum"),
    # issue841.p4: anything but checksum calls in the compute control
    ("other", "hdr.h.setValid(); "
              "update_checksum(true, { hdr.h.a }, hdr.h.b, HashAlgorithm.csum16);",
     "Only calls to update_checksum or update_checksum_with_payload allowed in CC"),
])
def test_checksum_controls_hold_checksum_calls_of_fields(tmp_path, name, apply_body, message):
    src, r = compile_source(tmp_path, name, _with_compute(apply_body))
    assert r.returncode == 1
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: {re.escape(message)}",
                    r.stderr), r.stderr


def test_checksum_data_of_fields_lists_and_constants_is_fine(tmp_path):
    # csum16 of the bytes 01 00 03 (padded with a zero byte): ~(0x0100 + 0x0300) = 0xfbff
    src, r = compile_source(tmp_path, "ok", _with_compute(
        "{ update_checksum(hdr.h.isValid(), { hdr.h.a, 8w0, (bit<8>)3 }, hdr.h.b, "
        "HashAlgorithm.csum16); }").replace("apply {\n        \n    }",
                                            "apply { sm.egress_spec = 1; }"))
    assert r.returncode == 0, r.stderr
    assert _process(src, b"\x01\x00\x00") == [(1, b"\x01\xfb\xff")]


def test_hash_data_must_be_a_list_or_struct(tmp_path):
    # hashing-non-tuple-bmv2.p4, issue584-1-bmv2.p4: p4c's BMv2 back end: "expected a struct"
    src, r = compile_source(tmp_path, "scalar", _program(
        body="hash(meta.m, HashAlgorithm.crc16, 8w0, hdr.h.a, 8w255);"))
    assert r.returncode == 1
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: data of type bit<8>: expected a "
                    "struct", r.stderr), r.stderr
    _compile_ok(tmp_path, "list", dict(
        body="hash(meta.m, HashAlgorithm.crc16, 8w0, { hdr.h.a }, 8w255);"))
