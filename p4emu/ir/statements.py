"""Typed statements: what the statement checker (`p4emu.compiler.passes.check_statements`)
builds from an AST statement and the statement emitter turns into Python.

Expressions in them are typed IR (`p4emu.ir.expressions`), already converted to the type
their place needs. Local variables are the compiler's scope bindings, held opaquely
(`binding`): the emitter gives them their Python name.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.expressions import Call, Expr
from p4emu.lang.types import Type


@dataclass(frozen=True, slots=True)
class Stmt:
    loc: object


@dataclass(frozen=True, slots=True)
class Empty(Stmt):
    """`;`, or a constant declaration whose value is known (nothing to run)."""


@dataclass(frozen=True, slots=True)
class Block(Stmt):
    stmts: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class VarDecl(Stmt):
    """A variable, with its initial value (None: the type's default)."""

    name: str
    type: Type
    binding: object
    init: Expr | None


@dataclass(frozen=True, slots=True)
class ConstDecl(Stmt):
    """A local constant whose value is known at run time only."""

    name: str
    type: Type
    binding: object
    value: Expr


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    """`target = value` (`target` a checked lvalue, `value` converted to its type).
    `index` is a run-time stack index of the target evaluated once, before the value,
    into the variable `index_binding` the target reads (p4c's SideEffectOrdering)."""

    target: Expr
    value: Expr
    index: Expr | None = None
    index_binding: object = None


@dataclass(frozen=True, slots=True)
class Evaluate(Stmt):
    """An expression evaluated for its effects: `_ = e;`, `h.isValid();`."""

    value: Expr


@dataclass(frozen=True, slots=True)
class CallStatement(Stmt):
    call: Call


@dataclass(frozen=True, slots=True)
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None


@dataclass(frozen=True, slots=True)
class SwitchCase:
    """Labels (None: `default`; a `CallableRef` of an action for a switch on
    `action_run`; else a constant) and the body they share (None: falls through)."""

    labels: tuple[Expr | None, ...]
    body: Block | None


@dataclass(frozen=True, slots=True)
class Switch(Stmt):
    value: Expr
    cases: tuple[SwitchCase, ...]


@dataclass(frozen=True, slots=True)
class ForIn(Stmt):
    """`for (T name in iterable)` (`low`/`high`: a range `low .. high` instead)."""

    name: str
    binding: object
    iterable: Expr | None
    low: Expr | None
    high: Expr | None
    body: Stmt


@dataclass(frozen=True, slots=True)
class For(Stmt):
    """`for (init; cond; update) body`."""

    init: tuple[Stmt, ...]
    cond: Expr | None
    update: tuple[Stmt, ...]
    body: Stmt


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Continue(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Exit(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    """`return value;` (`value` converted to the function's return type)."""

    value: Expr | None
