"""Constant folding: the values of operators, casts and slices on compile-time constants,
and the pass (`fold`) that replaces a typed expression whose value is known by that value.

Untyped ints fold at infinite precision; bit<N>/int<N> results wrap at their width, as
p4c's ConstantFolding computes. The type checker uses the value functions while it types
(types depend on constants: widths, indices, shift amounts); `fold` then rewrites the tree
so that the emitter writes a literal wherever a value is known.
"""

from __future__ import annotations

from dataclasses import replace

from p4emu.compiler.values import AggConst, lit, wrap
from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, InfIntT, StructT, TupleT, Type


# -- values ------------------------------------------------------------------------------
def fold_unary(op: str, t: Type, x):
    if op == "!":
        return not x
    v = {"-": -x, "+": x, "~": ~x}[op]
    return v if isinstance(t, InfIntT) else wrap(v, t)


def fold_infint(op: str, x: int, y: int, loc) -> int:
    if op in ("/", "%") and y == 0:
        raise P4CompileError(loc, "division by zero")
    c = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
         "/": lambda: x // y, "%": lambda: x % y, "&": lambda: x & y,
         "|": lambda: x | y, "^": lambda: x ^ y}.get(op)
    if c is None:
        raise P4CompileError(loc, f"{op}: operand width unknown")
    return c()


def fold_bits(op: str, x: int, y: int, t: BitsT, loc) -> int:
    if op in ("/", "%") and y == 0:
        raise P4CompileError(loc, "division by zero")
    if op in ("|+|", "|-|"):
        lo, hi = ((-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed else (0, t.mask))
        return max(lo, min(hi, x + y if op == "|+|" else x - y))
    v = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y,
         "/": x // y if y else 0, "%": x % y if y else 0}[op]
    return wrap(v, t)


def fold_compare(op: str, x, y) -> bool:
    return {"==": x == y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]


def fold_logical(op: str, x: bool, y: bool) -> bool:
    return (x and y) if op == "&&" else (x or y)


def fold_shift(op: str, x: int, y: int, t: Type) -> int:
    """`x << y` / `x >> y`; a bit<N>/int<N> left shift wraps at the width."""
    if op == ">>":
        return x >> y
    return x << y if isinstance(t, InfIntT) else wrap(x << y, t)


def fold_concat(x: int, a: BitsT, y: int, b: BitsT, t: BitsT) -> int:
    return wrap(((x & a.mask) << b.width) | (y & b.mask), t)


def fold_slice(x: int, t: Type, hi: int, lo: int) -> int:
    mask = (1 << (hi - lo + 1)) - 1
    return (x >> lo) & mask if isinstance(t, InfIntT) else (x & t.mask) >> lo & mask


def aggregate_const(t: Type, items: list[I.Expr], valid: bool = True) -> AggConst | None:
    """The value of a struct, header or tuple built from `items` when all are constants;
    `py` is what the emitter writes for it (`T.build(...)` or a tuple)."""
    if any(x.const is None for x in items):
        return None
    parts = [lit(x.const) for x in items]
    if isinstance(t, StructT):
        py = f"{t.py}.build({', '.join(parts)})" if valid else f"{t.py}()"
        return AggConst(py, tuple(x.const for x in items), tuple(n for n, _ in t.fields),
                        valid if t.kind == "header" else None)
    return AggConst("(" + "".join(p + ", " for p in parts) + ")", tuple(x.const for x in items))


# -- the pass ----------------------------------------------------------------------------
# nodes that become a literal when their value is known (and they contain no call):
# accesses into constant aggregates whatever their type, the others when scalar
_FOLD_ANY_TYPE = (I.Field, I.TupleIndex)
_FOLD_SCALAR = (I.Unary, I.Binary, I.Concat, I.Slice, I.Cast, I.Convert, I.StackProperty,
                I.HeaderQuery)
_CHILDREN = {
    I.Field: ("base",), I.MethodRef: ("base",), I.StackProperty: ("base",),
    I.ApplyResultMember: ("base",), I.HeaderQuery: ("base",), I.StackIndex: ("base", "index"),
    I.TupleIndex: ("base",), I.Slice: ("base",), I.Unary: ("operand",),
    I.Binary: ("left", "right"), I.Concat: ("left", "right"), I.CompoundEq: ("left", "right"),
    I.Ternary: ("cond", "then", "other"), I.Cast: ("operand",), I.Convert: ("operand",),
}


def fold(e: I.Expr) -> I.Expr:
    """`e` with every constant sub-expression replaced by its value."""
    return _fold(e)[0]


def _fold(e: I.Expr) -> tuple[I.Expr, bool]:
    """(folded `e`, whether it contains a call: a call's statements must stay)."""
    kind = type(e)
    if kind is I.Call:
        return e, True
    if kind is I.ListExpr or kind is I.StructExpr:
        name = "items" if kind is I.ListExpr else "values"
        parts = [_fold(x) for x in getattr(e, name)]
        if any(x is not old for (x, _), old in zip(parts, getattr(e, name), strict=True)):
            e = replace(e, **{name: tuple(x for x, _ in parts)})
        return e, any(c for _, c in parts)
    names = _CHILDREN.get(kind)
    if names is None:
        return e, False
    parts = {n: _fold(getattr(e, n)) for n in names}
    has_call = any(c for _, c in parts.values())
    if any(x is not getattr(e, n) for n, (x, _) in parts.items()):
        e = replace(e, **{n: x for n, (x, _) in parts.items()})
    if has_call:
        return e, True
    if kind is I.Ternary and e.cond.const is not None:
        return (e.then if e.cond.const else e.other), False
    if e.const is not None and (kind in _FOLD_ANY_TYPE or (
            kind in _FOLD_SCALAR and not isinstance(e.type, (StructT, TupleT)))):
        return I.Constant(e.type, e.loc, const=e.const), False
    return e, False
