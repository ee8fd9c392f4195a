"""Types as written in the source (`bit<8>`, `H[4]`, `T<U>`...); the checker resolves them
to `p4emu.lang.types`."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.ast.core import Expr, TypeRef


@dataclass(eq=False)
class TBase(TypeRef):
    name: str  # bool, error, string, void, match_kind, int (infint), _ (dontcare)


@dataclass(eq=False)
class TBits(TypeRef):
    width: Expr | None
    signed: bool
    varbit: bool = False


@dataclass(eq=False)
class TName(TypeRef):
    name: str
    args: list[TypeRef] = field(default_factory=list)
    is_global: bool = False


@dataclass(eq=False)
class TTuple(TypeRef):
    args: list[TypeRef]


@dataclass(eq=False)
class TStack(TypeRef):
    elem: TypeRef
    size: Expr
