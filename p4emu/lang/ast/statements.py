"""Statement nodes, including the local declarations that stand where statements do."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.ast.core import Annotation, Decl, Expr, Node, Stmt, TypeRef
from p4emu.lang.ast.expressions import Arg, Call


@dataclass(eq=False)
class Block(Stmt):
    stmts: list[Stmt]
    annotations: list[Annotation] = field(default_factory=list)


@dataclass(eq=False)
class Assign(Stmt):
    lhs: Expr
    rhs: Expr


@dataclass(eq=False)
class CallStmt(Stmt):
    call: Call


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None


@dataclass(eq=False)
class SwitchCase(Node):
    labels: list[Expr]  # DefaultKey for default
    body: Block | None  # None: falls through to the next case


@dataclass(eq=False)
class Switch(Stmt):
    expr: Expr
    cases: list[SwitchCase]


@dataclass(eq=False)
class Exit(Stmt):
    pass


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class For(Stmt):
    """`for (init; cond; update) body` or, with `var`, `for (T x in iterable) body`."""

    init: list[Stmt]
    cond: Expr | None
    update: list[Stmt]
    body: Stmt
    var: VarDecl | None = None
    iterable: Expr | None = None


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class Empty(Stmt):
    pass


# -- declarations that are statements too: they also stand in blocks and parser states --
@dataclass(eq=False)
class VarDecl(Decl, Stmt):
    type: TypeRef
    init: Expr | None
    is_const: bool = False


@dataclass(eq=False)
class InstanceDecl(Decl, Stmt):
    type: TypeRef
    args: list[Arg]
