"""Declare-before-use for type names, as p4c applies it: a type is visible after its
declaration only, including inside declarations the checker checks late (parsers and
controls, functions, extern functions and methods, whether or not anything uses them);
the forms p4c accepts still compile. The same for the actions a table lists: those of its
control declared before it, else the top-level ones declared before the control. And a
parser state named after a select case that matches anything is still resolved (p4c
reports it when it is undeclared)."""

from __future__ import annotations

import pytest

from p4emu.frontend import compile_file
from p4emu.lang.errors import P4CompileError

from .compile_helpers import v1model_program

_LATE_EXTERN = "extern Late { Late(); void m(); }"

# name -> (program pieces, the first error)
_REFUSED = {
    # an extern type used before its declaration, by an extern function nothing calls
    "extern_type_in_extern_function": (
        dict(globals=f"extern void use(in Late t);\n{_LATE_EXTERN}"), "Late: unknown type"),
    # ... by another extern's method
    "extern_type_in_extern_method": (
        dict(globals=f"extern Early {{ Early(); void m(in Late t); }}\n{_LATE_EXTERN}"),
        "Late: unknown type"),
    # ... by a control's parameter (the control is checked after every declaration)
    "extern_type_in_control_parameter": (
        dict(globals=f"control C2(in Late t) {{ apply {{ }} }}\n{_LATE_EXTERN}"),
        "Late: unknown type"),
    # a struct used before its declaration, by a variable of a control main uses
    "struct_in_control_local": (
        dict(locals="S s;", body="s.a = meta.m;", tail="struct S { bit<8> a; }"),
        "S: unknown type"),
    # a top-level action declared after the control whose table lists it
    "action_after_control": (
        dict(locals="table t { actions = { late; } }", body="t.apply();",
             tail="action late() { }"),
        "late: not an action"),
    # an undeclared state after `default`
    "state_after_default": (
        dict(states="state start { pkt.extract(hdr.h); transition select(hdr.h.a) "
                    "{ 1: accept; default: accept; 2: nowhere; } }"),
        "nowhere: no such parser state"),
}

_ACCEPTED = {
    # a forward `extern Name;` makes the name usable before its declaration
    "forward_extern": dict(globals=f"extern Late;\nextern void use(in Late t);\n{_LATE_EXTERN}"),
    # a generic struct's fields name types declared before it
    "generic_struct": dict(globals="struct G<T> { T v; meta_t w; }\nconst G<bit<8>> K = { 1, { 2 } };",
                           body="meta.m = K.v;"),
}


def _compile(tmp_path, name: str, pieces: dict):
    pieces = dict(pieces)
    tail = pieces.pop("tail", "")
    src = tmp_path / f"{name}.p4"
    src.write_text(v1model_program(**pieces) + tail)
    return compile_file(str(src), (str(tmp_path),))


@pytest.mark.parametrize("name", list(_REFUSED))
def test_refused(tmp_path, name):
    pieces, message = _REFUSED[name]
    with pytest.raises(P4CompileError) as info:
        _compile(tmp_path, name, pieces)
    assert str(info.value).splitlines()[0].split(": error: ", 1)[1] == message


@pytest.mark.parametrize("name", list(_ACCEPTED))
def test_accepted(tmp_path, name):
    assert _compile(tmp_path, name, _ACCEPTED[name]).program is not None


def test_each_instance_of_a_control_lists_its_own_actions(tmp_path):
    counted = ("control C(inout bit<8> k) { action a() { k = k + 1; } "
               "table t { actions = { a; } default_action = a; } apply { t.apply(); } }")
    result = _compile(tmp_path, "two_instances", dict(
        globals=counted, locals="C() c1; C() c2;", body="c1.apply(meta.m); c2.apply(hdr.h.a);"))
    actions = {a.preamble.id: a.preamble.name for a in result.p4info.actions}
    listed = {t.preamble.name: [actions[r.id] for r in t.action_refs] for t in result.p4info.tables}
    assert listed == {"I.c1.t": ["I.c1.a"], "I.c2.t": ["I.c2.a"]}
