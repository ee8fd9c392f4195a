"""The Python of operators (`OperatorEmitter`, a pass of `ProgramGen`, called by the
expression emitter for operator nodes) and casts (`cast_py`): each result is masked or
wrapped to its width after the operation, as p4c's BMv2 back end computes; an int known
only at run time (a cast of bit<N> to `int`) stays unbounded until a cast wraps it."""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.ordering import capture, lazy_join
from p4emu.compiler.values import V, lit, unsigned_py
from p4emu.ir import expressions as I
from p4emu.lang.types import BitsT, BoolT, EnumT, InfIntT, StackT, StructT, Type, same_type


def wrap_py(py: str, t: BitsT) -> str:
    """Python of `py` wrapped to int<N> `t`."""
    h = 1 << (t.width - 1)
    return f"(((({py}) + {h}) & {t.mask}) - {h})"


def signed_wrap(py: str, t: BitsT) -> str:
    h = 1 << (t.width - 1)
    return f"((({py}) + {h} & {t.mask}) - {h})"


def cast_py(py: str, s: Type, t: Type) -> str:
    """Python of the cast of a run-time value `py` of type `s` to type `t`."""
    if same_type(s, t):
        return py
    if isinstance(t, EnumT):
        return cast_py(py, s, t.underlying)
    if isinstance(s, EnumT):
        return cast_py(py, s.underlying, t)
    if isinstance(t, BitsT):
        if isinstance(s, BoolT):
            return f"int({py})"
        if isinstance(s, BitsT) and not s.signed and not t.signed and t.width >= s.width:
            return py
        if t.signed:
            h = 1 << (t.width - 1)
            if isinstance(s, InfIntT) or s.signed:
                return f"((({py} + {h}) & {t.mask}) - {h})"
            return f"((({py} & {t.mask}) ^ {h}) - {h})"
        return f"({py} & {t.mask})"
    if isinstance(t, BoolT):
        return f"({py} != 0)"
    if isinstance(t, InfIntT):
        # p4c's BMv2 back end masks a run-time bit<N> cast to `int` to the width of `int`,
        # 0 (JSON `x & 0`), so BMv2 computes 0
        return f"({py} & 0)"
    return py


class OperatorEmitter(CompilePass):
    """Unary and binary operators, concatenation and comparisons of compound values."""

    USES = ("exprs",)

    def emit(self, e: I.Unary | I.Binary | I.Concat | I.CompoundEq, fn) -> V:
        return OPERATOR_EMITTERS[type(e)](self, e, fn)

    def _emit_unary(self, e: I.Unary, fn) -> V:
        v = self.exprs.emit(e.operand, fn)
        t = e.type
        if e.op == "!":
            return V(f"(not {v.py})", t)
        if e.op == "~":
            return V(f"(~{v.py})" if t.signed else f"({v.py} ^ {t.mask})", t)
        if t.signed:
            return V(signed_wrap(f"-{v.py}", t), t)
        return V(f"(-{v.py} & {t.mask})", t)

    def _emit_binary(self, e: I.Binary, fn) -> V:
        op, t = e.op, e.type
        if op in ("&&", "||"):
            a = self.exprs.emit(e.left, fn)
            b, lines = capture(fn, lambda: self.exprs.emit(e.right, fn), extra_indent=1)
            if lines:  # the right operand has side effects: they run only when needed
                return lazy_join(fn, a, b, lines, op)
            if e.const is not None:
                return V(lit(e.const), t, e.const)
            return V(f"({a.py} {'and' if op == '&&' else 'or'} {b.py})", t)
        a, b = self.exprs.emit_in_order(fn, (e.left, e.right))
        if e.const is not None:  # not folded: an operand has a call
            return V(lit(e.const), t, e.const)
        if op in ("<<", ">>"):
            return self._emit_shift(e, a, b)
        if isinstance(t, BoolT) or isinstance(t, InfIntT) or op in ("&", "|", "^"):
            return V(f"({a.py} {op} {b.py})", t)
        if op in ("+", "-", "*"):
            if t.signed:
                return V(signed_wrap(f"{a.py} {op} {b.py}", t), t)
            return V(f"(({a.py} {op} {b.py}) & {t.mask})", t)
        if op == "/":
            return V(f"({a.py} // {b.py})", t)
        if op == "%":
            return V(f"({a.py} % {b.py})", t)
        sign = "+" if op == "|+|" else "-"
        if t.signed:
            h = 1 << (t.width - 1)
            return V(f"max(-{h}, min({a.py} {sign} {b.py}, {h - 1}))", t)
        if op == "|+|":
            return V(f"min({a.py} + {b.py}, {t.mask})", t)
        return V(f"max({a.py} - {b.py}, 0)", t)

    def _emit_shift(self, e: I.Binary, a: V, b: V) -> V:
        t = e.type
        if e.op == ">>":
            if b.const is not None and b.const >= t.width:
                return V(f"(-1 if {a.py} < 0 else 0)", t) if t.signed else V("0", t)
            return V(f"({a.py} >> {b.py})", t)
        if b.const is not None:
            if t.signed:
                return V(signed_wrap(f"{a.py} << {b.const}", t), t)
            return V(f"(({a.py} << {b.const}) & {t.mask})", t)
        if t.signed:
            h = 1 << (t.width - 1)
            return V(f"(((({a.py} << {b.py}) + {h}) & {t.mask}) - {h} if {b.py} < {t.width} else 0)", t)
        return V(f"((({a.py} << {b.py}) & {t.mask}) if {b.py} < {t.width} else 0)", t)

    def _emit_concat(self, e: I.Concat, fn) -> V:
        a, b = self.exprs.emit_in_order(fn, (e.left, e.right))
        t = e.type
        py = f"(({unsigned_py(a)} << {e.right.type.width}) | {unsigned_py(b)})"
        if t.signed:
            h = 1 << (t.width - 1)
            py = f"(({py} ^ {h}) - {h})"
        return V(py, t)

    def _emit_compound_eq(self, e: I.CompoundEq, fn) -> V:
        a, b = self.exprs.emit_in_order(fn, (e.left, e.right))
        if isinstance(a.ty, (StructT, StackT)):
            py = f"{a.py}.equals({b.py})"
            return V(py if e.op == "==" else f"(not {py})", e.type)
        return V(f"({a.py} {e.op} {b.py})", e.type)


# the emitter of each operator node class, called as emit(the OperatorEmitter, e, fn)
OPERATOR_EMITTERS: dict[type, Callable[..., V]] = {
    I.Unary: OperatorEmitter._emit_unary,
    I.Binary: OperatorEmitter._emit_binary,
    I.Concat: OperatorEmitter._emit_concat,
    I.CompoundEq: OperatorEmitter._emit_compound_eq,
}
