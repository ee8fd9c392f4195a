"""Unary and binary operators in the type checker (`OperatorChecker`, a pass of the
`ProgramChecker`, checking the operator nodes of the `ExpressionChecker`): operand types,
the conversions they agree on, and the value when the operands are known (folded at
infinite precision for untyped ints, wrapped to the width for bit<N>/int<N>)."""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import convert, unify
from p4emu.compiler.passes.folding import (
    fold_bits,
    fold_compare,
    fold_concat,
    fold_infint,
    fold_logical,
    fold_shift,
    fold_unary,
)
from p4emu.ir import expressions as I
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

COMPOUND = (StructT, StackT, TupleT)


def _both(a: I.Expr, b: I.Expr) -> bool:
    return a.const is not None and b.const is not None


class OperatorChecker(CompilePass):
    """Unary and binary operators (the expression checker's operator nodes)."""

    USES = ("exprs",)

    def check(self, e: A.Unary | A.Binary, scope, want) -> I.Expr:
        return self._check_unary(e, scope, want) if isinstance(e, A.Unary) else \
            self._check_binary(e, scope, want)

    def _check_unary(self, e: A.Unary, scope, want) -> I.Expr:
        v = self.exprs.check(e.expr, scope, want if e.op in ("-", "~", "+") else None)
        t, c = v.type, v.const
        if e.op == "!":
            if not isinstance(t, BoolT):
                raise P4CompileError(e.loc, f"!: expected bool, got {t}")
        elif isinstance(t, InfIntT):
            if c is None:
                raise P4CompileError(e.loc, f"{e.op}: operand width unknown")
        elif not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{e.op}: expected an integer, got {t}")
        elif e.op == "+" and c is None:
            return v
        return I.Unary(t, e.loc, e.op, v, const=fold_unary(e.op, t, c) if c is not None else None)

    def _check_binary(self, e: A.Binary, scope, want) -> I.Expr:
        op = e.op
        if op in ("&&", "||"):
            a = self.exprs.check(e.left, scope)
            b = self.exprs.check(e.right, scope)
            for x, side in ((a, e.left), (b, e.right)):
                if not isinstance(x.type, BoolT):
                    raise P4CompileError(side.loc, f"{op}: expected bool, got {x.type}")
            return I.Binary(BOOL, e.loc, op, a, b,
                            const=fold_logical(op, a.const, b.const) if _both(a, b) else None)
        if op in ("<<", ">>"):
            return self._check_shift(e, scope, want)
        # operands are typed on their own (int literals fold at infinite precision, as
        # in p4c); the context type applies to the result only
        a = self.exprs.check(e.left, scope)
        # `h == {#}`, `s == {1, 2}`: the other operand gives the brace expression its type
        b = self.exprs.check(e.right, scope, a.type if isinstance(a.type, COMPOUND) else None)
        if isinstance(a.type, InfIntT) and isinstance(b.type, BitsT) and op != "++":
            a = convert(a, b.type, e.loc)
        if op == "++":
            return self._check_concat(e, a, b)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            if op in ("==", "!=") and (isinstance(a.type, COMPOUND) or isinstance(b.type, COMPOUND)):
                return self._check_compound_eq(e, a, b)
            if not (isinstance(a.type, InfIntT) and isinstance(b.type, InfIntT)):
                a, b = unify(a, b, e.loc, op)
            if op not in ("==", "!=") and not isinstance(a.type, (BitsT, InfIntT)):
                raise P4CompileError(e.loc, f"{op}: cannot compare values of type {a.type}")
            return I.Binary(BOOL, e.loc, op, a, b,
                            const=fold_compare(op, a.const, b.const) if _both(a, b) else None)
        if isinstance(a.type, InfIntT) and isinstance(b.type, InfIntT):
            if not _both(a, b):  # an int known only at run time (a cast of bit<N> to int)
                if op not in ("+", "-", "*", "&", "|", "^"):
                    raise P4CompileError(e.loc, f"{op}: operand width unknown")
                return I.Binary(INFINT, e.loc, op, a, b)
            return I.Binary(INFINT, e.loc, op, a, b, const=fold_infint(op, a.const, b.const, e.loc))
        a, b = unify(a, b, e.loc, op)
        t = a.type
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{op}: expected integers, got {t}")
        if op in ("/", "%") and t.signed:
            raise P4CompileError(e.loc, f"{op}: not supported on signed values ({t})")
        if op in ("/", "%") and b.const == 0:
            raise P4CompileError(e.loc, "division by zero")
        if op not in ("+", "-", "*", "/", "%", "&", "|", "^", "|+|", "|-|"):
            raise unsupported(e.loc, f"operator {op}")
        return I.Binary(t, e.loc, op, a, b,
                        const=fold_bits(op, a.const, b.const, t, e.loc) if _both(a, b) else None)

    def _check_shift(self, e: A.Binary, scope, want) -> I.Expr:
        a = self.exprs.check(e.left, scope)
        b = self.exprs.check(e.right, scope)
        if isinstance(a.type, InfIntT) and b.const is None and isinstance(want, BitsT):
            a = convert(a, want, e.left.loc)  # `1 << n` takes the width of its context
        bt = b.type
        if isinstance(bt, BitsT) and bt.signed:
            raise P4CompileError(e.right.loc, "shift amount must be unsigned")
        if not isinstance(bt, (BitsT, InfIntT)) or getattr(bt, "newtype", None):  # p4c: bit<S>
            raise P4CompileError(e.right.loc, f"{expr_text(e.right)}: The right operand of shift "
                                              f"must be either an expression of type bit<S> or a "
                                              f"compile-time known value that is a non-negative "
                                              f"integer, but is {getattr(bt, 'newtype', None) or bt}")
        if isinstance(b.const, int) and b.const < 0:
            raise P4CompileError(e.right.loc, f"shift by a negative amount {b.const}")
        t = a.type
        if isinstance(t, InfIntT):
            if not _both(a, b):
                raise P4CompileError(e.loc, f"{e.op}: width of left operand unknown")
        elif not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{e.op}: expected an integer, got {t}")
        if _both(a, b):
            value = fold_shift(e.op, a.const, b.const, t)
        elif e.op == "<<" and b.const is not None and b.const >= t.width:
            value = 0  # every bit shifted out
        else:
            value = None
        return I.Binary(t, e.loc, e.op, a, b, const=value)

    def _check_concat(self, e: A.Binary, a: I.Expr, b: I.Expr) -> I.Expr:
        for x, side in ((a, e.left), (b, e.right)):
            if not isinstance(x.type, BitsT):
                raise P4CompileError(side.loc, f"++: operands must be bit<N> or int<N>, got {x.type}")
        t = BitsT(a.type.width + b.type.width, a.type.signed)
        value = fold_concat(a.const, a.type, b.const, b.type, t) if _both(a, b) else None
        return I.Concat(t, e.loc, a, b, const=value)

    def _check_compound_eq(self, e: A.Binary, a: I.Expr, b: I.Expr) -> I.Expr:
        at, bt = a.type, b.type
        if (isinstance(at, StructT) and isinstance(bt, StructT) and at is bt) or (
                isinstance(at, StackT) and isinstance(bt, StackT) and same_type(at, bt)) or (
                isinstance(at, TupleT) and isinstance(bt, TupleT) and len(at.items) == len(bt.items)):
            return I.CompoundEq(BOOL, e.loc, e.op, a, b)
        raise P4CompileError(e.loc, f"{e.op}: cannot compare {at} and {bt}")
