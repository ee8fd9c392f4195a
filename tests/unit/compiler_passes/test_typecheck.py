"""The type-checking pass: AST expression + scope + expected type -> typed IR."""

from __future__ import annotations

import pytest

from p4emu.ir import expressions as I
from p4emu.lang.errors import Loc, P4CompileError
from p4emu.lang.types import BOOL, INFINT, BitsT

from .helpers import fragments, parse_expr


def check(text: str, want=None) -> I.Expr:
    return fragments().expr(text, want)


def test_a_sized_operand_gives_an_untyped_literal_its_width_and_the_value_wraps():
    e = check("8w255 + 1")
    assert isinstance(e, I.Binary) and (e.op, e.type, e.const) == ("+", BitsT(8), 0)
    assert e.left == I.Constant(BitsT(8), Loc("t.p4", 1, 1), const=255)
    # the literal stays an int, converted to the sized operand's type
    assert isinstance(e.right, I.Convert) and e.right.type == BitsT(8) and e.right.const == 1
    assert e.right.operand == I.Constant(INFINT, Loc("t.p4", 1, 9), const=1)


def test_an_int_literal_takes_the_expected_type_and_wraps_to_it():
    e = check("17", BitsT(4))
    assert isinstance(e, I.Constant) and e.type == BitsT(4) and e.const == 1
    assert check("17").type == INFINT and check("17").const == 17


def test_untyped_ints_fold_at_infinite_precision():
    e = check("(1 << 40) - 1")
    assert e.type == INFINT and e.const == (1 << 40) - 1


def test_names_resolve_to_their_bindings_and_run_time_values_have_no_value():
    e = check("x + 1")
    assert isinstance(e.left, I.VarRef) and e.left.name == "x" and e.left.binding.py == "x_py"
    assert e.type == BitsT(8) and e.const is None


def test_comparisons_and_logical_operators_are_bool():
    e = check("x < 3 && b")
    assert e.type == BOOL and isinstance(e.left, I.Binary) and e.left.type == BOOL


def test_slices_and_concatenations_have_the_widths_p4_gives_them():
    assert check("w[11:4]").type == BitsT(8)
    e = check("x ++ w")
    assert isinstance(e, I.Concat) and e.type == BitsT(24)
    assert check("8w0xab ++ 4w0xc").const == 0xabc


def test_an_unknown_name_is_a_located_error():
    with pytest.raises(P4CompileError) as err:
        check("x + nope")
    assert str(err.value) == "t.p4:1:5: error: nope: not declared"


def test_a_width_mismatch_is_a_located_error():
    with pytest.raises(P4CompileError) as err:
        check("x + w")
    assert str(err.value) == "t.p4:1:3: error: +: cannot operate on bit<8> and bit<16>"


def test_a_slice_out_of_range_and_a_bad_cast_are_errors():
    with pytest.raises(P4CompileError, match=r"slice \[8:0\] out of range of bit<8>"):
        check("x[8:0]")
    with pytest.raises(P4CompileError, match="cannot cast bit<8> to bool"):
        check("(bool)x")


def test_a_conditional_of_untyped_ints_with_a_run_time_condition_has_no_width():
    with pytest.raises(P4CompileError, match="width of the result cannot be inferred"):
        check("b ? 1 : 2")
    e = check("b ? 1 : 2", BitsT(4))
    assert isinstance(e, I.Ternary) and e.type == BitsT(4)


def test_the_checker_records_types_on_the_syntax_tree():
    f = fragments()
    ast = parse_expr("x + 1")
    f.expr(ast)
    assert ast.ty == BitsT(8) and ast.left.ref is f.scope.lookup("x")
