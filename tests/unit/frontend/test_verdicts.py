"""Front-end verdicts as p4c's: programs p4c rejects fail with `file:line:col: error:` and
the message for the same reason (exit status 1); programs p4c accepts compile, list their
tables in P4Info and compute what P4 says on a packet.

The rejected cases below the marker were accepted by p4emu until fixed in the tree;
`{#}` and `...` were refused until fixed.
"""

from __future__ import annotations

import re

import pytest
from p4.config.v1 import p4info_pb2

from .compile_helpers import compile_source
from .compile_helpers import v1model_program as _program

# name -> (program pieces, the message p4emu gives; p4c rejects each for the same reason)
_REJECTED = {
    "undeclared_name": (dict(body="meta.m = nosuch;"),
        "nosuch: not declared"),
    "undeclared_field": (dict(body="meta.m = hdr.h.zz;"),
        "h_t has no field zz"),
    "width_mismatch_assign": (dict(body="meta.m = hdr.h.b;"),
        "type mismatch: expected bit<8>, got bit<16>"),
    "width_mismatch_binop": (dict(body="meta.m = meta.m + hdr.h.b;"),
        "+: cannot operate on bit<8> and bit<16>"),
    "width_mismatch_compare": (dict(body="if (meta.m == hdr.h.b) { meta.m = 1; }"),
        "==: cannot operate on bit<8> and bit<16>"),
    "bool_to_bit": (dict(body="meta.m = hdr.h.isValid();"),
        "type mismatch: expected bit<8>, got bool"),
    "condition_not_bool": (dict(body="if (meta.m) { meta.m = 1; }"),
        "if: condition must be bool, got bit<8>"),
    "signed_division": (dict(body="int<8> s = 4; int<8> q = s / 2; meta.m = (bit<8>)q;"),
        "/: not supported on signed values (int<8>)"),
    "signed_shift_amount": (dict(body="int<8> s = 1; meta.m = meta.m << s;"),
        "shift amount must be unsigned"),
    "slice_out_of_range": (dict(body="meta.m = hdr.h.a[8:1];"),
        "slice [8:1] out of range of bit<8>"),
    "assign_to_constant": (dict(globals="const bit<8> K = 1;", body="K = 2;"),
        "cannot assign to K"),
    "inout_arg_not_lvalue": (dict(locals="action a(inout bit<8> v) { v = 1; }", body="a(meta.m + 1);"),
        "expression is not assignable"),
    "action_arg_count": (dict(locals="action a(bit<8> x) { meta.m = x; }", body="a();"),
        "a: expected 1 arguments, got 0"),
    "return_value_in_action": (dict(locals="action a() { return 1; }", body="a();"),
        "return with a value outside a function"),
    "default_action_not_listed": (dict(
        locals="action a() { } action b() { } table t { key = { meta.m: exact; } "
               "actions = { a; } default_action = b; }", body="t.apply();"),
        "b: not in the actions of table t"),
    "const_entry_action_not_listed": (dict(
        locals="action a() { } action b() { } table t { key = { meta.m: exact; } "
               "actions = { a; } const entries = { 1 : b(); } }", body="t.apply();"),
        "b: not in the actions of table t"),
    "unknown_match_kind": (dict(
        locals="table t { key = { meta.m: nosuchkind; } actions = { NoAction; } }",
        body="t.apply();"),
        "nosuchkind: unknown match kind"),
    "switch_label_not_action": (dict(
        locals="action a() { } table t { key = { meta.m: exact; } actions = { a; } }",
        body="switch (t.apply().action_run) { b: { } }"),
        "b: not an action"),
    "extern_method_unknown": (dict(locals="register<bit<8>>(4) r;", body="r.frobnicate(0);"),
        "register has no method frobnicate"),
    "register_write_wrong_width": (dict(locals="register<bit<8>>(4) r;", body="r.write(0, hdr.h.b);"),
        "type mismatch: expected bit<8>, got bit<16>"),
    "header_in_header": (dict(globals="header hh_t { h_t inner; }"),
        "header field inner: type h_t not allowed in a header"),
    "enum_no_member": (dict(globals="enum bit<8> E { A = 1 }", body="meta.m = (bit<8>)E.B;"),
        "E.B: invalid member"),
    "instance_in_apply": (dict(body="counter(4, CounterType.packets) c; c.count(0);"),
        "instantiations are not allowed inside blocks"),
    "missing_semicolon": (dict(body="meta.m = 1"),
        "syntax error, expected ';', found '}'"),
    "continue_outside_loop": (dict(body="continue;"),
        "continue outside a loop"),
    "undeclared_state": (dict(states="state start { pkt.extract(hdr.h); transition nowhere; }"),
        "nowhere: no such parser state"),
    "no_start_state": (dict(states="state begin { pkt.extract(hdr.h); transition accept; }"),
        "parser P has no start state"),
    "select_keyset_width": (dict(
        states="state start { pkt.extract(hdr.h); transition select(hdr.h.a) "
               "{ 16w1: accept; default: reject; } }"),
        "type mismatch: expected bit<8>, got bit<16>"),
    "extract_non_header": (dict(states="state start { pkt.extract(meta); transition accept; }"),
        "extract: meta_t is not a header"),
    # p4c rejects all of these; p4emu used to accept them
    "assign_in_param": (dict(locals="action a(in bit<8> x) { x = 2; meta.m = x; }", body="a(meta.m);"),
        "cannot assign to x: not writable"),
    "assign_directionless_param": (dict(
        locals="action a(bit<8> x) { x = 2; meta.m = x; } "
               "table t { key = { meta.m: exact; } actions = { a; } }", body="t.apply();"),
        "cannot assign to x: not writable"),
    "table_apply_in_action": (dict(
        locals="table t { key = { meta.m: exact; } actions = { NoAction; } } "
               "action a() { t.apply(); }", body="a();"),
        "t.apply: tables cannot be applied from actions"),
    "exit_in_function": (dict(globals="bit<8> f(in bit<8> x) { exit; return x; }",
                             body="meta.m = f(meta.m);"),
        "exit statements are not allowed in functions"),
    "switch_in_action": (dict(locals="action a() { switch (meta.m) { 1: { meta.m = 2; } } }",
                             body="a();"),
        "switch statements are not allowed in actions"),
    "duplicate_action": (dict(locals="action a() { } action a() { }", body="a();"),
        "a: duplicate declaration"),
    "duplicate_local": (dict(body="bit<8> v = 1; bit<8> v = 2; meta.m = v;"),
        "v: duplicate declaration"),
    "duplicate_global": (dict(globals="struct dup_t { bit<8> a; } struct dup_t { bit<8> b; }"),
        "dup_t: duplicate declaration"),
    "duplicate_param": (dict(locals="action a(bit<8> x, bit<8> x) { meta.m = x; }", body="a(1, 2);"),
        "x: duplicate parameter name"),
    "duplicate_enum_member": (dict(globals="enum E { A, A }"),
        "enum E: duplicate member"),
    "duplicate_switch_label": (dict(
        locals="action a() { } action b() { } table t { key = { meta.m: exact; } "
               "actions = { a; b; } }", body="switch (t.apply().action_run) { a: { } a: { } }"),
        "duplicate switch label a"),
    "table_without_actions": (dict(locals="table t { key = { meta.m: exact; } }", body="t.apply();"),
        "table t has no actions property"),
    "table_applied_twice": (dict(
        locals="table t { key = { meta.m: exact; } actions = { NoAction; } }",
        body="if (meta.m == 1) { t.apply(); meta.m = 3; } else { t.apply(); meta.m = 4; }"),
        "Program is not supported by this target, because table I.t has multiple successors"),
    "division_by_constant_zero": (dict(body="meta.m = meta.m / 8w0;"),
        "division by zero"),
    "register_read_wrong_width": (dict(locals="register<bit<8>>(4) r;", body="r.read(hdr.h.b, 0);"),
        "register read: result type bit<16> does not match bit<8>"),
    "mark_to_drop_wrong_argument": (dict(body="mark_to_drop(meta);"),
        "mark_to_drop: expected standard_metadata_t, got meta_t"),
    "cast_bit8_to_bool": (dict(body="bool c = (bool)meta.m; if (c) { meta.m = 1; }"),
        "cannot cast bit<8> to bool (only bit<1>)"),
    "exit_in_parser": (dict(states="state start { pkt.extract(hdr.h); exit; transition accept; }"),
        "exit statements are not allowed in parsers"),
    "return_in_parser": (dict(states="state start { pkt.extract(hdr.h); return; }"),
        "return statements are not allowed in parsers"),
    "state_named_accept": (dict(
        states="state start { pkt.extract(hdr.h); transition accept; } "
               "state accept { transition reject; }"),
        "parser state accept is built in and cannot be implemented"),
    "duplicate_state": (dict(
        states="state start { transition s1; } state s1 { transition accept; } "
               "state s1 { transition accept; }"),
        "s1: duplicate parser state"),
    # accepted by p4emu until fixed in the tree
    "entries_on_keyless_table": (dict(
        locals="action a() { } table t { actions = { a; } default_action = a; "
               "const entries = { _ : a(); } }", body="t.apply();"),
        "table t: entries need a key"),
    "two_lpm_keys": (dict(
        locals="table t { key = { meta.m: lpm; hdr.h.a: lpm; } actions = { NoAction; } }",
        body="t.apply();"),
        "table t: more than one lpm key field (not supported by BMv2)"),
    "negative_shift_amount": (dict(body="meta.m = meta.m << -1;"),
        "shift by a negative amount -1"),
    "subcontrol_table_applied_twice": (dict(
        globals="control Lookup(inout bit<8> k) { action set(bit<8> v) { k = v; } "
                "table t { key = { k : exact; } actions = { set; NoAction; } "
                "default_action = NoAction(); } apply { t.apply(); } }",
        locals="Lookup() lk;", body="lk.apply(meta.m); lk.apply(hdr.h.a);"),
        "unsupported: table I.lk.t applied more than once (through a second apply of I.lk; BMv2 allows one application per table)"),
}

@pytest.mark.parametrize("name,case", list(_REJECTED.items()), ids=list(_REJECTED))
def test_frontend_rejects(tmp_path, name, case):
    pieces, message = case
    src, r = compile_source(tmp_path, name, _program(**pieces))
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    first = (r.stderr or r.stdout).strip().splitlines()[0]
    assert re.match(rf"^{re.escape(str(src))}:\d+:\d+: error: {re.escape(message)}", first), first


# name -> (program pieces, [(packet in on port 0, what comes out)], P4Info table names).
# Each body ends by sending the packet to port meta.m + 1 (_EPILOGUE), so the value the
# program computed is the output port; hdr.h is 8 + 16 bits and emitted when valid.
_EPILOGUE = " sm.egress_spec = 9w1 + (bit<9>)meta.m;"
_ACCEPTED = {
    "trailing_commas": (dict(globals="enum E { X, Y, } enum bit<8> F { P = 1, Q = 2, }",
                             body="meta.m = (bit<8>)F.Q;"),
                        [(b"\x07\x00\x00", [(3, b"\x07\x00\x00")])], set()),
    "typedef_chain_and_type": (dict(
        globals="typedef bit<8> u8; typedef u8 v8; type bit<8> W8;",
        body="v8 x = hdr.h.a; W8 w = (W8)x; meta.m = (bit<8>)w;"),
        [(b"\x07\x00\x00", [(8, b"\x07\x00\x00")])], set()),
    # (BIG >> 66) is 16: 0xff ^ 0x10
    "int_constants": (dict(globals="const int BIG = 1 << 70; const bit<8> M1 = (bit<8>)-1;",
                           body="meta.m = M1 ^ (bit<8>)(BIG >> 66);"),
                      [(b"\x07\x00\x00", [(0xf0, b"\x07\x00\x00")])], set()),
    "concat_and_slices": (dict(body="bit<8> t = 1w1 ++ 7w0; t[3:0] = 4w0xF; meta.m = t;"),
                          [(b"\x07\x00\x00", [(0x90, b"\x07\x00\x00")])], set()),
    # (0x15, 3) hits the first entry, (0x07, 0) only the catch-all
    "masks_ranges_default_entries": (dict(
        locals="action a(bit<8> v) { meta.m = v; } table t { key = { hdr.h.a: ternary; "
               "hdr.h.b: range; } actions = { a; } const entries = { (0x10 &&& 0xF0, 1 .. 5) "
               ": a(1); (_, _) : a(2); @priority(3) (0x20, 7) : a(3); } }",
        body="t.apply();"),
        [(b"\x15\x00\x03", [(2, b"\x15\x00\x03")]), (b"\x07\x00\x00", [(3, b"\x07\x00\x00")])],
        {"I.t"}),
    "tuple_select_value_set": (dict(
        states="value_set<bit<16>>(4) vs; state start { pkt.extract(hdr.h); transition "
               "select(hdr.h.a, hdr.h.b) { (1, vs): accept; (0x10 &&& 0xF0, 0 .. 9): "
               "accept; (_, _): accept; } }"),
        [(b"\x15\x00\x03", [(1, b"\x15\x00\x03")])], set()),
    "annotations_everywhere": (dict(
        globals="@brief(\"b\") @name(\"s\") struct ss_t { @foo bit<8> f; }",
        locals="@name(\"act\") @id(7) action a(@name(\"val\") bit<8> v) { meta.m = v; } "
               "@name(\"tbl\") @id(0x02000009) table t { key = { meta.m: exact @name(\"k\"); } "
               "actions = { @tableonly a; @defaultonly NoAction; } default_action = NoAction(); }",
        body="t.apply();"),
        [(b"\x07\x00\x00", [(1, b"\x07\x00\x00")])], {"I.tbl"}),
    "macros": (dict(globals="#define TWICE(x) ((x) + (x))\n#if TWICE(2) == 4\n#  if defined(TWICE)"
                            "\nconst bit<8> K = TWICE(3);\n#  endif\n#else\n#error no\n#endif",
                    body="meta.m = K;"),
               [(b"\x07\x00\x00", [(7, b"\x07\x00\x00")])], set()),
    # `{#}` and `...` were rejected until fixed in the tree; an invalid hdr.h is not emitted
    "invalid_header_expression": (dict(body="hdr.h = {#}; if (hdr.h == {#}) { meta.m = 1; }"),
                                  [(b"\x07\x00\x00", [(2, b"")])], set()),
    "default_initializer": (dict(globals="struct two_t { bit<8> x; bit<8> y; }",
                                 body="two_t p = { y = 5, ... }; meta.m = p.x + p.y;"),
                            [(b"\x07\x00\x00", [(6, b"\x07\x00\x00")])], set()),
}


@pytest.mark.parametrize("name", list(_ACCEPTED))
def test_frontend_accepts(tmp_path, name):
    from p4emu.frontend import compile_file
    from p4emu.runtime.device import DeviceState
    from p4emu.v1model.pipeline import Pipeline

    pieces, packets, tables = _ACCEPTED[name]
    pieces = dict(pieces, body=pieces.get("body", "") + _EPILOGUE)
    src = tmp_path / f"{name}.p4"
    src.write_text(_program(**pieces))
    result = compile_file(str(src))
    assert {t.preamble.name for t in result.p4info.tables} == tables
    pipeline = Pipeline(result.program, DeviceState.from_program(result.program.info))
    assert [(data, pipeline.process(0, data)) for data, _ in packets] == packets


def test_annotations_name_and_number_p4info_objects(tmp_path):
    from p4emu.frontend import compile_file

    pieces, _, _ = _ACCEPTED["annotations_everywhere"]
    src = tmp_path / "annotations.p4"
    src.write_text(_program(**pieces))
    p4info = compile_file(str(src)).p4info
    (table,) = p4info.tables
    assert (table.preamble.id, table.preamble.name) == (0x02000009, "I.tbl")
    assert [(f.name, f.bitwidth) for f in table.match_fields] == [("k", 8)]
    (act,) = [a for a in p4info.actions if a.preamble.name == "I.act"]
    assert act.preamble.id == 0x01000007  # @id(7) under the action prefix
    assert [(p.name, p.bitwidth) for p in act.params] == [("val", 8)]
    scopes = {ref.id: ref.scope for ref in table.action_refs}
    assert scopes[act.preamble.id] == p4info_pb2.ActionRef.TABLE_ONLY
