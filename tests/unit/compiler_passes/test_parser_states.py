"""The parser-transition checker (AST transition -> typed `Select` with keysets) and its
emission as the return of the next state."""

from __future__ import annotations

import pytest

from p4emu.compiler.passes.resolve_names import resolve_parser_states
from p4emu.compiler.scope import Fn
from p4emu.ir import parser_states as P
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT

from .helpers import declaring

SOURCE = """
const bit<8> C = 7;
parser p() {
    state start { transition select(x, w) { (1, 16w0x800 &&& 0xf00): next; (_, 5 .. 9): accept; default: next; (2, 2, 2): next; } }
    state next { transition select(x) { C: accept; } }
    state bad { transition select(x) { (2, 2): next; } }
    state call { transition select(x) { C + 1: next; default: nowhere; } }
    state unreached { transition select(x) { default: next; 1: accept; 2: nowhere; } }
}
"""


def transition(state: str):
    gen, scope = declaring(SOURCE)
    parser = next(d for d in gen.program.decls if isinstance(d, A.ParserDecl))
    states = resolve_parser_states(parser)
    return gen.checker.parser_states.check_transition(states.states[state], scope, states), gen


def test_keysets_are_typed_constants_of_their_keys_type_and_later_cases_are_unreachable():
    select, _ = transition("start")
    assert isinstance(select, P.Select) and [k.type for k in select.keys] == [BitsT(8), BitsT(16)]
    first, second, default = select.cases  # the keysets after `default` are never checked
    exact, masked = first.keysets
    assert isinstance(exact, P.Exact) and exact.value.type == BitsT(8) and exact.value.const == 1
    assert isinstance(masked, P.Masked) and (masked.value.const, masked.mask.const) == (0x800, 0xF00)
    assert masked.mask.type == BitsT(16) and first.state == "next"
    anything, in_range = second.keysets
    assert isinstance(anything, P.AnyKey) and isinstance(in_range, P.InRange) and second.state is None
    assert [k.__class__ for k in default.keysets] == [P.AnyKey]


def test_select_errors():
    with pytest.raises(P4CompileError, match="select case has 2 keysets for 1 keys"):
        transition("bad")
    with pytest.raises(P4CompileError, match="nowhere: no such parser state"):
        transition("call")


def test_an_undeclared_state_after_a_case_matching_anything_is_reported():
    # never reached, but p4c resolves its name all the same
    with pytest.raises(P4CompileError, match="nowhere: no such parser state"):
        transition("unreached")


def test_a_select_emits_one_test_per_case_and_returns_the_state_function():
    select, gen = transition("next")
    fn = Fn(gen.next_id)
    gen.parser_states.emit_transition(select, {"start": "S_1", "next": "S_2"}, fn)
    assert fn.lines == ["    k_1 = x_py", "    if k_1 == 7: return None", "    return None"]
