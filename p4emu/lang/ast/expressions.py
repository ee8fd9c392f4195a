"""Expression nodes, the argument of a call, and the keyset forms (`default`, `_`, `&&&`,
`..`) that select cases and table entries use."""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.lang.ast.core import Expr, Node, TypeRef


@dataclass(eq=False)
class IntLit(Expr):
    value: int
    width: int | None
    signed: bool
    base: int = 10  # as written (p4c prints key names with it)


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class StrLit(Expr):
    value: str


@dataclass(eq=False)
class Path(Expr):
    name: str
    is_global: bool = False


@dataclass(eq=False)
class TypeExpr(Expr):
    """A type used in expression position: `E.member`, `error.X`, `T(args)` constructors."""

    type: TypeRef


@dataclass(eq=False)
class Member(Expr):
    expr: Expr
    name: str


@dataclass(eq=False)
class Index(Expr):
    expr: Expr
    index: Expr


@dataclass(eq=False)
class Slice(Expr):
    expr: Expr
    hi: Expr
    lo: Expr


@dataclass(eq=False)
class Arg(Node):
    name: str | None
    value: Expr | None  # None: `_` don't-care argument


@dataclass(eq=False)
class Call(Expr):
    func: Expr
    type_args: list[TypeRef]
    args: list[Arg]


@dataclass(eq=False)
class Unary(Expr):
    op: str
    expr: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(eq=False)
class Cast(Expr):
    type: TypeRef
    expr: Expr


@dataclass(eq=False)
class ListExpr(Expr):
    items: list[Expr]
    rest_default: bool = False  # trailing `...`: remaining fields take default values


@dataclass(eq=False)
class StructExpr(Expr):
    fields: list[tuple[str, Expr]]
    type: TypeRef | None = None
    rest_default: bool = False  # trailing `...`: remaining fields take default values


@dataclass(eq=False)
class DontCare(Expr):
    pass


@dataclass(eq=False)
class InvalidHeader(Expr):
    """`{#}`: an invalid header or header union."""


@dataclass(eq=False)
class DefaultValue(Expr):
    """`...`: the default value of the whole expected type."""


@dataclass(eq=False)
class DefaultKey(Expr):
    pass


@dataclass(eq=False)
class Mask(Expr):
    value: Expr
    mask: Expr


@dataclass(eq=False)
class Range(Expr):
    low: Expr
    high: Expr
