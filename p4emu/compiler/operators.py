"""Unary and binary operators (mixin of `ProgramGen`): their typing, constant folding
(at infinite precision for untyped ints, wrapped to the width for bit<N>/int<N>, as p4c's
ConstantFolding) and the generated Python, masked after each operation as p4c's BMv2 back
end computes.

The lazy right operand of `&&`/`||` and operands that emit statements are ordered by
`ordering.py`; `exprs.py` dispatches `A.Unary`/`A.Binary` here.
"""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text
from p4emu.compiler.values import V, lit, runtime_int_op, unsigned_py, wrap
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    BOOL,
    INFINT,
    BitsT,
    BoolT,
    InfIntT,
    StackT,
    StructT,
    TupleT,
    same_type,
)


class OperatorGen:
    """`self` is the `ProgramGen`."""

    def _unary(self, e: A.Unary, scope, fn, want) -> V:
        v = self.expr(e.expr, scope, fn, want if e.op in ("-", "~", "+") else None)
        t = v.ty
        if e.op == "!":
            if not isinstance(t, BoolT):
                raise P4CompileError(e.loc, f"!: expected bool, got {t}")
            if v.const is not None:
                return V(lit(not v.const), BOOL, not v.const)
            return V(f"(not {v.py})", BOOL)
        if isinstance(t, InfIntT):
            if v.const is None:
                raise P4CompileError(e.loc, f"{e.op}: operand width unknown")
            c = {"-": -v.const, "+": v.const, "~": ~v.const}[e.op]
            return V(lit(c), INFINT, c)
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{e.op}: expected an integer, got {t}")
        if v.const is not None:
            c = wrap({"-": -v.const, "+": v.const, "~": ~v.const}[e.op], t)
            return V(lit(c), t, c)
        if e.op == "+":
            return v
        if e.op == "~":
            return V(f"(~{v.py})" if t.signed else f"({v.py} ^ {t.mask})", t)
        if t.signed:
            return self._signed_wrap(f"-{v.py}", t)
        return V(f"(-{v.py} & {t.mask})", t)

    def _signed_wrap(self, py: str, t: BitsT) -> V:
        h = 1 << (t.width - 1)
        return V(f"((({py}) + {h} & {t.mask}) - {h})", t)

    def _binary(self, e: A.Binary, scope, fn, want) -> V:
        op = e.op
        if op in ("&&", "||"):
            a = self.expr(e.left, scope, fn)
            b, lines = self.capture(fn, lambda: self.expr(e.right, scope, fn), extra_indent=1)
            for x, side in ((a, e.left), (b, e.right)):
                if not isinstance(x.ty, BoolT):
                    raise P4CompileError(side.loc, f"{op}: expected bool, got {x.ty}")
            if lines:  # the right operand has side effects: they run only when needed
                return self.lazy_join(fn, a, b, lines, op)
            if a.const is not None and b.const is not None:
                c = (a.const and b.const) if op == "&&" else (a.const or b.const)
                return V(lit(c), BOOL, c)
            return V(f"({a.py} {'and' if op == '&&' else 'or'} {b.py})", BOOL)
        if op in ("<<", ">>"):
            return self._shift(e, scope, fn, want)
        # operands are typed on their own (int literals fold at infinite precision, as
        # in p4c); the context type applies to the result only
        left: list[V] = []

        def gen_left() -> V:
            left.append(self.expr(e.left, scope, fn))
            return left[0]

        def gen_right() -> V:
            # `h == {#}`, `s == {1, 2}`: the other operand gives the brace expression its type
            lt = left[0].ty
            return self.expr(e.right, scope, fn, lt if isinstance(lt, (StructT, StackT, TupleT)) else None)

        a, b = self.in_order(fn, [gen_left, gen_right])
        if isinstance(a.ty, InfIntT) and isinstance(b.ty, BitsT) and op != "++":
            a = self.coerce(a, b.ty, e.loc)
        if op == "++":
            return self._concat(e, a, b)
        if op in ("==", "!="):
            if isinstance(a.ty, (StructT, StackT, TupleT)) or isinstance(b.ty, (StructT, StackT, TupleT)):
                return self._compound_eq(e, a, b)
            if not (isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT)):
                a, b = self.unify_binary(a, b, e.loc, op)
            if a.const is not None and b.const is not None:
                c = (a.const == b.const) == (op == "==")
                return V(lit(c), BOOL, c)
            return V(f"({a.py} {op} {b.py})", BOOL)
        if op in ("<", ">", "<=", ">="):
            if not (isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT)):
                a, b = self.unify_binary(a, b, e.loc, op)
            if not isinstance(a.ty, (BitsT, InfIntT)):
                raise P4CompileError(e.loc, f"{op}: cannot compare values of type {a.ty}")
            if a.const is not None and b.const is not None:
                c = {"<": a.const < b.const, ">": a.const > b.const,
                     "<=": a.const <= b.const, ">=": a.const >= b.const}[op]
                return V(lit(c), BOOL, c)
            return V(f"({a.py} {op} {b.py})", BOOL)
        if isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT):
            if a.const is None or b.const is None:
                return runtime_int_op(e, op, a, b)
            return self._fold_infint(e, op, a.const, b.const)
        a, b = self.unify_binary(a, b, e.loc, op)
        t = a.ty
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{op}: expected integers, got {t}")
        if op in ("/", "%") and t.signed:
            raise P4CompileError(e.loc, f"{op}: not supported on signed values ({t})")
        if op in ("/", "%") and b.const == 0:
            raise P4CompileError(e.loc, "division by zero")
        if a.const is not None and b.const is not None:
            c = self._fold_bits(e, op, a.const, b.const, t)
            return V(lit(c), t, c)
        if op in ("&", "|", "^"):
            return V(f"({a.py} {op} {b.py})", t)
        if op in ("+", "-", "*"):
            if t.signed:
                return self._signed_wrap(f"{a.py} {op} {b.py}", t)
            return V(f"(({a.py} {op} {b.py}) & {t.mask})", t)
        if op == "/":
            return V(f"({a.py} // {b.py})", t)
        if op == "%":
            return V(f"({a.py} % {b.py})", t)
        if op == "|+|":
            if t.signed:
                h = 1 << (t.width - 1)
                return V(f"max(-{h}, min({a.py} + {b.py}, {h - 1}))", t)
            return V(f"min({a.py} + {b.py}, {t.mask})", t)
        if op == "|-|":
            if t.signed:
                h = 1 << (t.width - 1)
                return V(f"max(-{h}, min({a.py} - {b.py}, {h - 1}))", t)
            return V(f"max({a.py} - {b.py}, 0)", t)
        raise unsupported(e.loc, f"operator {op}")

    def _fold_infint(self, e, op, x, y) -> V:
        if op in ("/", "%") and y == 0:
            raise P4CompileError(e.loc, "division by zero")
        c = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
             "/": lambda: x // y, "%": lambda: x % y, "&": lambda: x & y,
             "|": lambda: x | y, "^": lambda: x ^ y}.get(op)
        if c is None:
            raise P4CompileError(e.loc, f"{op}: operand width unknown")
        v = c()
        return V(lit(v), INFINT, v)

    def _fold_bits(self, e, op, x, y, t: BitsT) -> int:
        if op in ("/", "%") and y == 0:
            raise P4CompileError(e.loc, "division by zero")
        if op == "|+|":
            lo, hi = ((-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed else (0, t.mask))
            return max(lo, min(hi, x + y))
        if op == "|-|":
            lo, hi = ((-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed else (0, t.mask))
            return max(lo, min(hi, x - y))
        v = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y,
             "/": x // y if y else 0, "%": x % y if y else 0}[op]
        return wrap(v, t)

    def _shift(self, e: A.Binary, scope, fn, want) -> V:
        a, b = self.in_order(fn, [lambda: self.expr(e.left, scope, fn),
                                  lambda: self.expr(e.right, scope, fn)])
        if isinstance(a.ty, InfIntT) and b.const is None and isinstance(want, BitsT):
            a = self.coerce(a, want, e.left.loc)  # `1 << n` takes the width of its context
        if isinstance(b.ty, BitsT) and b.ty.signed:
            raise P4CompileError(e.right.loc, "shift amount must be unsigned")
        if not isinstance(b.ty, (BitsT, InfIntT)) or getattr(b.ty, "newtype", None):  # p4c: bit<S>
            raise P4CompileError(e.right.loc, f"{expr_text(e.right)}: The right operand of shift "
                                              f"must be either an expression of type bit<S> or a "
                                              f"compile-time known value that is a non-negative "
                                              f"integer, but is {getattr(b.ty, 'newtype', None) or b.ty}")
        if isinstance(b.const, int) and b.const < 0:
            raise P4CompileError(e.right.loc, f"shift by a negative amount {b.const}")
        if isinstance(a.ty, InfIntT):
            if a.const is None or b.const is None:
                raise P4CompileError(e.loc, f"{e.op}: width of left operand unknown")
            c = a.const << b.const if e.op == "<<" else a.const >> b.const
            return V(lit(c), INFINT, c)
        t = a.ty
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{e.op}: expected an integer, got {t}")
        if a.const is not None and b.const is not None:
            c = wrap(a.const << b.const, t) if e.op == "<<" else a.const >> b.const
            return V(lit(c), t, c)
        if e.op == ">>":
            if b.const is not None and b.const >= t.width:
                return V("-1" if t.signed else "0", t) if not t.signed else V(f"(-1 if {a.py} < 0 else 0)", t)
            return V(f"({a.py} >> {b.py})", t)
        if b.const is not None:
            if b.const >= t.width:
                return V("0", t, 0)
            if t.signed:
                return self._signed_wrap(f"{a.py} << {b.const}", t)
            return V(f"(({a.py} << {b.const}) & {t.mask})", t)
        if t.signed:
            h = 1 << (t.width - 1)
            return V(f"(((({a.py} << {b.py}) + {h}) & {t.mask}) - {h} if {b.py} < {t.width} else 0)", t)
        return V(f"((({a.py} << {b.py}) & {t.mask}) if {b.py} < {t.width} else 0)", t)

    def _concat(self, e, a: V, b: V) -> V:
        for x, side in ((a, e.left), (b, e.right)):
            if not isinstance(x.ty, BitsT):
                raise P4CompileError(side.loc, f"++: operands must be bit<N> or int<N>, got {x.ty}")
        t = BitsT(a.ty.width + b.ty.width, a.ty.signed)
        bw = b.ty.width
        au = unsigned_py(a)
        bu = unsigned_py(b)
        if a.const is not None and b.const is not None:
            c = wrap(((a.const & a.ty.mask) << bw) | (b.const & b.ty.mask), t)
            return V(lit(c), t, c)
        py = f"(({au} << {bw}) | {bu})"
        if t.signed:
            h = 1 << (t.width - 1)
            py = f"(({py} ^ {h}) - {h})"
        return V(py, t)

    def _compound_eq(self, e, a: V, b: V) -> V:
        if (isinstance(a.ty, StructT) and isinstance(b.ty, StructT) and a.ty is b.ty) or (
                isinstance(a.ty, StackT) and isinstance(b.ty, StackT) and same_type(a.ty, b.ty)):
            py = f"{a.py}.equals({b.py})"
            return V(py if e.op == "==" else f"(not {py})", BOOL)
        if isinstance(a.ty, TupleT) and isinstance(b.ty, TupleT) and len(a.ty.items) == len(b.ty.items):
            return V(f"({a.py} {e.op} {b.py})", BOOL)
        raise P4CompileError(e.loc, f"{e.op}: cannot compare {a.ty} and {b.ty}")
