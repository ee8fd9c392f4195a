"""Parser states and their transitions (`transition select (...) { ... }`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.ast.core import Decl, Expr, Node, Stmt


@dataclass(eq=False)
class SelectCase(Node):
    keys: list[Expr]  # one per select expression (a single DefaultKey/DontCare allowed)
    state: str


@dataclass(eq=False)
class Transition(Node):
    select: list[Expr] | None  # None: direct transition
    state: str | None
    cases: list[SelectCase] = field(default_factory=list)


@dataclass(eq=False)
class StateDecl(Decl):
    stmts: list[Stmt]
    transition: Transition | None
