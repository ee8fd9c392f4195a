"""The name-resolution pass (parser-state names): bindings recorded per reference before
checking, errors recorded and raised only where the checker needs the name."""

from __future__ import annotations

import pytest

from p4emu.compiler.passes.resolve_names import StateRef, Unresolved, resolve_names
from p4emu.compiler.passes.resolve_table_names import LocalRef
from p4emu.compiler.passes.resolve_type_names import TYPE_VARIABLE
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError

from .helpers import parse_program

SOURCE = """
parser p() {
    state start { transition select(8w1) { 1: later; 2: accept; default: nowhere; } }
    state later { transition reject; }
}
parser q() {
    state start { transition accept; }
    state start { transition accept; }
    state other { transition accept; }
}
"""


def resolved(source: str = SOURCE):
    program = parse_program(source)
    res = resolve_names(program)
    parsers = [d for d in program.decls if isinstance(d, A.ParserDecl)]
    return res, parsers


def test_targets_bind_to_states_declared_later_and_to_the_built_in_ones():
    res, (p, _) = resolved()
    ps = res.parser(p)
    start, later = p.states
    to_later, to_accept, to_nowhere = start.transition.cases
    assert ps.target(to_later) == StateRef("later", later)
    assert ps.target(to_accept) == StateRef("accept", None)
    assert ps.target(later.transition) == StateRef("reject", None)
    assert ps.error is None and ps.states == {"start": start, "later": later}


def test_an_undeclared_target_is_recorded_and_raised_only_when_read():
    res, (p, _) = resolved()
    ps = res.parser(p)
    nowhere = p.states[0].transition.cases[2]
    assert isinstance(ps.successors(p.states[0])[2], Unresolved)
    for _ in range(2):  # raised afresh each time (a parser instantiated twice)
        with pytest.raises(P4CompileError, match="nowhere: no such parser state"):
            ps.target(nowhere)


def test_the_state_table_error_is_recorded_not_raised():
    res, (_, q) = resolved()
    err = res.parser(q).error
    assert err is not None and err.message == "start: duplicate parser state"
    assert err.loc == q.states[1].loc


def test_table_keys_see_every_match_kind_of_the_program_wherever_declared():
    program = parse_program("""
match_kind { exact }
control c() { table t { key = { x : exact; y : lpm; z : nope; } actions = { } } apply { } }
match_kind { lpm }
""")
    res = resolve_names(program)
    first, control, last = program.decls
    exact, lpm, nope = control.locals[0].properties[0].value
    assert res.match_kind(exact) is first and res.match_kind(lpm) is last
    with pytest.raises(P4CompileError, match="nope: unknown match kind"):
        res.match_kind(nope)


TYPES = """
typedef bit<8> T8;
struct S { T8 a; Later l; S self; }
typedef Later L;
extern Fwd;
extern E<X> { E(); X get<Y>(in Y y, in Fwd f); }
parser P(packet_in p) { state start { transition accept; } }
extern Fwd { Fwd(); }
header Later { bit<8> v; }
const bit<8> T8 = 1;
control C(in S s) { T8 t; apply { } }
"""


def type_names(source: str = TYPES):
    program = parse_program(source)
    return resolve_names(program).types, program.decls


def _refs(names, node) -> list:
    """The bindings of the type names directly under `node`'s fields, in order."""
    return [names.refs[id(tr)] for tr in _tnames(node)]


def _tnames(node) -> list[A.TName]:
    if isinstance(node, A.TName):
        return [node, *(t for a in node.args for t in _tnames(a))]
    if isinstance(node, (list, tuple)):
        return [t for item in node for t in _tnames(item)]
    if isinstance(node, A.Node):
        return [t for v in vars(node).values() for t in _tnames(v)]
    return []


def test_type_names_see_the_declarations_before_them_and_a_struct_itself():
    names, (t8, s, alias, fwd, e, p, fwd_full, later, const_t8, c) = type_names()
    a, l_, self_ = _refs(names, s.fields)
    assert a is t8 and self_ is s
    assert isinstance(l_, Unresolved) and l_.message == "Later: unknown type"
    assert isinstance(_refs(names, alias)[0], Unresolved)  # Later comes after the typedef


def test_type_parameters_forward_externs_and_placeholders():
    names, (t8, s, alias, fwd, e, p, fwd_full, later, const_t8, c) = type_names()
    ret, y, f = _refs(names, e.methods[1])
    assert ret is TYPE_VARIABLE and y is TYPE_VARIABLE and f is fwd  # the checker maps it to Fwd's full declaration
    assert _refs(names, p.params) == [names.placeholders["packet_in"]]


def test_a_later_declaration_of_another_kind_hides_an_earlier_one_from_then_on():
    names, (t8, s, alias, fwd, e, p, fwd_full, later, const_t8, c) = type_names()
    param, local = _refs(names, [c.params, c.locals])
    assert param is s and local is const_t8  # the constant: "unknown type" when checked
    assert names.first_unread_error().message == "Later: unknown type"


def test_only_type_names_in_type_positions_are_reported_unread():
    # in an expression the parser makes a type name of any name declared as a type
    # anywhere: one that names no type there is reported only if the checker reads it
    names, (c, _) = type_names("control C() { apply { bit<8> x = (bit<8>)S.minSizeInBits(); } } struct S { }")
    in_expression = [tr for tr in _tnames(c) if tr.name == "S"]
    assert len(in_expression) == 1 and isinstance(names.refs[id(in_expression[0])], Unresolved)
    assert names.first_unread_error() is None
    names, _ = type_names("const Undeclared k = 1;")
    assert names.first_unread_error().message == "Undeclared: unknown type"


TABLES = """
extern action_profile { action_profile(bit<32> size); }
action g() { }
action shadowed() { }
control C(in bit<8> k)(bit<8> size) {
    action shadowed() { }
    action_profile(4) ap;
    table t {
        key = { k : exact; }
        actions = { g; shadowed; .shadowed; later; after_control; k; t; }
        default_action = shadowed;
        const entries = { 1 : g(); }
        implementation = ap;
    }
    action later() { }
    table t2 { actions = { t; later; } }
    apply { }
}
action after_control() { }
"""


def test_table_names_see_the_control_locals_before_the_table_then_the_top_level_before_the_control():
    program = parse_program(TABLES)
    res = resolve_names(program)
    _, g, shadowed, control, _ = program.decls
    local_shadowed, ap, t, later, t2 = control.locals
    props = {p.name: p.value for p in t.properties}
    bound = [res.table_names[id(ar)] for ar in props["actions"]]
    assert bound[:3] == [g, LocalRef(local_shadowed), shadowed]  # `.name`: the top level
    assert bound[3:] == [None, None, LocalRef(control.params[0]), None]  # later ones; a table is no action
    assert res.table_names[id(props["default_action"])] == LocalRef(local_shadowed)
    assert res.table_names[id(props["entries"][0].action)] is g
    assert res.table_names[id(props["implementation"])] == LocalRef(ap)
    assert [res.table_names[id(ar)] for ar in t2.properties[0].value] == [LocalRef(t), LocalRef(later)]
