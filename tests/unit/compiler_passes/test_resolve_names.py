"""The name-resolution pass (parser-state names): bindings recorded per reference before
checking, errors recorded and raised only where the checker needs the name."""

from __future__ import annotations

import pytest

from p4emu.compiler.passes.resolve_names import StateRef, Unresolved, resolve_names
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


def test_a_parser_the_pass_has_not_seen_is_resolved_on_demand():
    _, (p, _) = resolved()
    res, _ = resolved("")
    assert res.parser(p).states.keys() == {"start", "later"}


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
