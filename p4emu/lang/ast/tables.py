"""Tables and their properties: keys, action lists, default actions and const entries."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.ast.core import Annotation, Decl, Expr, Node
from p4emu.lang.ast.expressions import Arg


@dataclass(eq=False)
class TableProperty(Node):
    name: str
    value: object  # Expr, list[KeyElement], list[ActionRefSyntax], list[EntrySyntax]
    is_const: bool
    annotations: list[Annotation] = field(default_factory=list)


@dataclass(eq=False)
class KeyElement(Node):
    expr: Expr
    match_kind: str
    annotations: list[Annotation]


@dataclass(eq=False)
class ActionRefSyntax(Node):
    name: str
    args: list[Arg]
    annotations: list[Annotation]
    is_global: bool = False


@dataclass(eq=False)
class EntrySyntax(Node):
    keys: list[Expr]
    action: ActionRefSyntax
    annotations: list[Annotation]
    priority: Expr | None = None


@dataclass(eq=False)
class TableDecl(Decl):
    properties: list[TableProperty]
