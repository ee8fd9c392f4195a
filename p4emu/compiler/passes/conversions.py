"""Conversions in the type checker, functions the checker's passes share (they need no
state): implicit ones (`convert`: an untyped int taking a width, a serializable enum and
its underlying type), the operand types binary operators agree on (`unify`) and explicit
casts (`cast_expr`). Each returns a typed node whose value is folded when its operand's is
known."""

from __future__ import annotations

from p4emu.compiler.values import wrap
from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import (
    DONTCARE,
    BitsT,
    BoolT,
    EnumT,
    InfIntT,
    StructT,
    TupleT,
    Type,
    TypeVarT,
    same_type,
)


def convert(e: I.Expr, t: Type, loc) -> I.Expr:
    """Implicit conversion of `e` to type `t` (only infint literals and identical types)."""
    if t is None or isinstance(t, TypeVarT) or t is DONTCARE or same_type(e.type, t):
        return e
    s = e.type
    if isinstance(s, InfIntT):
        if isinstance(t, BitsT):
            return I.Convert(t, e.loc, e, const=wrap(e.const, t) if e.const is not None else None)
        if isinstance(t, EnumT) and t.underlying is not None:
            return I.Convert(t, e.loc, e, const=e.const)
        if isinstance(t, InfIntT):
            return e
    if isinstance(t, TupleT) and isinstance(s, TupleT) and len(t.items) == len(s.items):
        return e
    if isinstance(t, StructT) and isinstance(s, TupleT):
        return e  # list expression assigned to a struct/header: handled by assignment
    if isinstance(t, BitsT) and isinstance(s, EnumT) and s.underlying == t:
        return I.Convert(t, e.loc, e, const=e.const)
    raise P4CompileError(loc, f"type mismatch: expected {t}, got {s}")


def unify(a: I.Expr, b: I.Expr, loc, op: str) -> tuple[I.Expr, I.Expr]:
    """The operands of a binary operator converted to one type."""
    if isinstance(a.type, InfIntT) and not isinstance(b.type, InfIntT):
        a = convert(a, b.type, loc)
    elif isinstance(b.type, InfIntT) and not isinstance(a.type, InfIntT):
        b = convert(b, a.type, loc)
    if not same_type(a.type, b.type):
        at, bt = a.type, b.type
        if isinstance(at, EnumT) and at.underlying is not None and bt == at.underlying:
            return a, I.Convert(at, b.loc, b, const=b.const)
        if isinstance(bt, EnumT) and bt.underlying is not None and at == bt.underlying:
            return I.Convert(bt, a.loc, a, const=a.const), b
        raise P4CompileError(loc, f"{op}: cannot operate on {at} and {bt}")
    return a, b


def cast_expr(e: I.Expr, t: Type, loc) -> I.Expr:
    """`(t) e`, also written `t(e)` for bit/bool types: width and signedness changes wrap,
    bool <-> bit<1>, a serializable enum <-> its underlying type, a list to a struct,
    bit<N> to `int`."""
    s, c = e.type, e.const
    if same_type(s, t):
        return I.Cast(t, loc, e, const=c)
    if isinstance(t, BitsT):
        if isinstance(s, (BitsT, InfIntT)):
            return I.Cast(t, loc, e, const=wrap(c, t) if c is not None else None)
        if isinstance(s, BoolT):
            return I.Cast(t, loc, e, const=int(c) if c is not None else None)
        if isinstance(s, EnumT) and s.underlying is not None:
            inner = cast_expr(I.Convert(s.underlying, e.loc, e, const=c), t, loc)
            return I.Cast(t, loc, e, const=inner.const)
    if isinstance(t, BoolT) and isinstance(s, (BitsT, InfIntT)):
        if isinstance(s, BitsT) and (s.width != 1 or s.signed):
            raise P4CompileError(loc, f"cannot cast {s} to bool (only bit<1>)")
        if isinstance(s, InfIntT) and c not in (0, 1):
            raise P4CompileError(loc, f"cannot cast {c} to bool")
        return I.Cast(t, loc, e, const=bool(c) if c is not None else None)
    if isinstance(t, EnumT) and t.underlying is not None and isinstance(s, (BitsT, InfIntT)):
        return I.Cast(t, loc, e, const=cast_expr(e, t.underlying, loc).const)
    if isinstance(t, StructT) and isinstance(s, TupleT):
        return I.Cast(t, loc, e, const=c)
    if isinstance(t, InfIntT) and (c is not None or isinstance(s, BitsT)):
        return I.Cast(t, loc, e, const=c)
    raise P4CompileError(loc, f"cannot cast {s} to {t}")
