"""The emitter: typed, folded IR -> the Python the generated program runs."""

from __future__ import annotations

from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import Fn
from p4emu.compiler.values import V
from p4emu.ir import expressions as I
from p4emu.lang.errors import Loc
from p4emu.lang.types import BOOL, BitsT

from .helpers import fragments

LOC = Loc("t.p4", 1, 1)


def emitted(text: str, want=None) -> str:
    f = fragments()
    return f.gen.exprs.emit(fold(f.expr(text, want)), None).py


def test_arithmetic_is_masked_to_the_width():
    assert emitted("x + 1") == "((x_py + 1) & 255)"
    assert emitted("x & 8w0xf0") == "(x_py & 240)"
    assert emitted("~x") == "(x_py ^ 255)"


def test_signed_arithmetic_wraps_around():
    assert emitted("y - 1") == "(((y_py - 1) + 128 & 255) - 128)"


def test_slices_shift_and_mask():
    assert emitted("x[7:4]") == "(x_py >> 4)"
    assert emitted("x[3:0]") == "(x_py & 15)"
    assert emitted("w[11:4]") == "((w_py >> 4) & 255)"


def test_casts_truncate_or_reinterpret():
    assert emitted("(bit<4>)x") == "(x_py & 15)"
    assert emitted("(int<8>)x") == "(((x_py & 255) ^ 128) - 128)"
    assert emitted("(bit<16>)x") == "x_py"


def test_constants_are_literals():
    assert emitted("16w4096") == "0x1000"
    assert emitted("8w255 + 1") == "0"
    assert emitted("b && !false") == "(b_py and True)"


def test_a_conditional_and_a_lazy_operand_without_side_effects_stay_expressions():
    assert emitted("b ? x : 8w1") == "(x_py if b_py else 1)"
    assert emitted("b || x == 2") == "(b_py or (x_py == 2))"


def test_an_operand_is_saved_before_a_later_operands_statements_run():
    f = fragments()
    gen, scope = f.gen, f.scope
    fn = Fn(gen.next_id)
    call = I.Call(BitsT(8), LOC, I.CallableRef(BitsT(8), LOC, "f", None))

    def fake_call(e, fn, as_statement):  # a call with a copy-out statement
        fn.emit("r = f()")
        return V("r", BitsT(8))

    gen.calls.emit_call = fake_call
    x = I.VarRef(BitsT(8), LOC, "x", scope.lookup("x"))
    v = gen.exprs.emit(I.Binary(BitsT(8), LOC, "+", x, call), fn)
    assert fn.lines == ["    o_1 = x_py", "    r = f()"]
    assert v.py == "((o_1 + r) & 255)"


def test_a_lazy_operand_with_statements_runs_them_only_when_needed():
    f = fragments()
    gen, scope = f.gen, f.scope
    fn = Fn(gen.next_id)
    call = I.Call(BitsT(8), LOC, I.CallableRef(BitsT(8), LOC, "f", None))

    def fake_call(e, fn, as_statement):
        fn.emit("r = f()")
        return V("r", BitsT(8))

    gen.calls.emit_call = fake_call
    b = I.VarRef(BOOL, LOC, "b", scope.lookup("b"))
    right = I.Binary(BOOL, LOC, "==", call, I.Constant(BitsT(8), LOC, const=1))
    v = gen.exprs.emit(I.Binary(BOOL, LOC, "&&", b, right), fn)
    assert fn.lines == ["    sc_1 = b_py", "    if sc_1:", "        r = f()", "        sc_1 = (r == 1)"]
    assert v.py == "sc_1"
