"""The constant-folding pass: typed IR -> typed IR with known values as literals."""

from __future__ import annotations

from p4emu.compiler.passes.folding import fold, fold_bits, fold_slice
from p4emu.ir import expressions as I
from p4emu.lang.errors import Loc
from p4emu.lang.types import BitsT

from .helpers import fragments

LOC = Loc("t.p4", 1, 1)


def folded(text: str, want=None) -> I.Expr:
    return fold(fragments().expr(text, want))


def test_a_constant_expression_becomes_its_wrapped_value():
    e = folded("8w255 + 1")
    assert e == I.Constant(BitsT(8), e.loc, const=0)
    assert folded("8w3 - 4").const == 255
    assert folded("(int<8>)8w200").const == -56


def test_run_time_operands_stay_and_constant_parts_fold():
    e = folded("x + 8w2 * 3")
    assert isinstance(e, I.Binary) and (e.op, e.type, e.const) == ("+", BitsT(8), None)
    assert isinstance(e.left, I.VarRef) and e.left.name == "x"
    assert e.right == I.Constant(BitsT(8), Loc("t.p4", 1, 9), const=6)  # at the `*`


def test_a_constant_condition_picks_its_arm():
    assert isinstance(folded("true ? x : 8w3"), I.VarRef)
    assert folded("false ? x : 8w3").const == 3


def test_saturating_operators_and_slices_of_signed_values():
    assert fold_bits("|+|", 250, 10, BitsT(8), LOC) == 255
    assert fold_bits("|-|", -120, 10, BitsT(8, True), LOC) == -128
    assert fold_slice(-1, BitsT(8, True), 7, 4) == 0xF


def test_a_value_whose_operand_has_a_call_is_not_folded():
    # `f() << 8` of a bit<8> is 0 whatever f returns, but f's statements must still run
    call = I.Call(BitsT(8), LOC, I.CallableRef(BitsT(8), LOC, "f", None))
    e = I.Binary(BitsT(8), LOC, "<<", call, I.Constant(BitsT(8), LOC, const=8), const=0)
    assert isinstance(fold(e), I.Binary) and fold(e).left is call
    assert fold(I.Binary(BitsT(8), LOC, "<<", e.right, e.right, const=0)) == I.Constant(BitsT(8), LOC, const=0)
