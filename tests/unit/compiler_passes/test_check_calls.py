"""The type checker on calls: arguments bound to parameters with their directions and
types (generic ones inferred), out/inout arguments checked as writable lvalues."""

from __future__ import annotations

import pytest

from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT

from .helpers import fragments

FUNCTIONS = """
bit<8> f(in bit<8> a, out bit<8> r) { r = a; return a; }
T id<T>(in T v) { return v; }
bit<8> g(in bit<8> a, in bit<8> c = 3) { return a + c; }
"""


def check(text: str) -> I.Expr:
    return fragments(FUNCTIONS).expr(text)


def test_a_call_holds_its_arguments_typed_with_their_parameters_directions():
    e = check("f(1, x)")
    assert isinstance(e, I.Call) and e.type == BitsT(8) and e.callee.name == "f"
    a, r = e.args
    assert (a.direction, a.type, r.direction, r.type) == ("in", BitsT(8), "out", BitsT(8))
    assert a.value.type == BitsT(8) and a.value.const == 1  # the literal takes bit<8>
    assert isinstance(r.value, I.VarRef) and r.value.name == "x"


def test_a_type_argument_is_inferred_from_an_argument_and_types_the_result():
    e = check("id(w)")
    assert e.type == BitsT(16) and e.type_args == (("T", BitsT(16)),)
    assert check("id<bit<4>>(3)").type == BitsT(4)


def test_named_arguments_are_put_in_parameter_order_and_defaults_filled_in():
    e = check("g(c = 8w1, a = x)")
    assert [a.value.name if isinstance(a.value, I.VarRef) else a.value.const for a in e.args] == ["x", 1]
    assert check("g(x)").args[1].value.const == 3


def test_an_out_argument_must_be_writable_and_the_error_is_located():
    with pytest.raises(P4CompileError, match="cannot assign to k: not writable") as err:
        check("f(1,  k)")
    assert str(err.value.loc) == "t.p4:1:7"  # at the argument
    with pytest.raises(P4CompileError, match="expression is not assignable"):
        check("f(1, x + 1)")


def test_argument_count_and_type_errors():
    with pytest.raises(P4CompileError, match="f: expected 2 arguments, got 3"):
        check("f(1, x, x)")
    with pytest.raises(P4CompileError, match="type mismatch: expected bit<8>, got bit<16>"):
        check("f(w, x)")
    with pytest.raises(P4CompileError, match="id: cannot infer type argument T"):
        check("id(3)")
