"""The roots of the syntax tree: `Node`, annotations, and the base class of each node family.

The families refer to each other (types hold width and size expressions, expressions hold
types, statements hold declarations and declarations hold statement blocks), so their
roots live here, apart from the subclasses: each family's module then imports this one
and only the families its nodes contain, and the modules form no cycle.

`Expr` nodes get `ty` (a `types.Type`), `ref` (the declaration or binding a name resolves
to) and `const` filled in by the checker; the code generator reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.lang.annotation_tokens import first_integer, first_string
from p4emu.lang.errors import Loc


@dataclass(eq=False)
class Node:
    loc: Loc


@dataclass(eq=False)
class Annotation:
    name: str
    body: list  # tokens between the parentheses (or [])
    loc: Loc

    def string(self) -> str | None:
        """The first string literal of the body (`@name("x")` -> "x")."""
        return first_string(self.body)

    def integer(self) -> int | None:
        """The first number of the body (`@id(5)` -> 5)."""
        return first_integer(self.body)


def find_annotation(annos: list[Annotation], name: str) -> Annotation | None:
    for a in annos:
        if a.name == name:
            return a
    return None


# -- the roots of the node families ----------------------------------------------------
@dataclass(eq=False)
class TypeRef(Node):
    pass


@dataclass(eq=False)
class Expr(Node):
    def __post_init__(self):
        self.ty = None
        self.ref = None
        self.const = None  # compile-time value when known


@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Decl(Node):
    name: str

    def __post_init__(self):
        self.annotations: list[Annotation] = []
