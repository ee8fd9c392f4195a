"""Typed table declarations: what the compiler's table checker
(`p4emu.compiler.passes.check_tables`) makes of a `table` and the generator emits.

Key elements hold their typed expressions, the actions list its entries with their bound
(directional) arguments, `default_action` and `entries` their action calls with the action
data as numbers and the entries' keysets as match values (`p4emu.runtime.match`). Actions
are the compiler's scope bindings, held opaquely (`binding`); annotations are the AST's.
`p4emu.ir.tables.Table` is the control plane's (P4Info's) view of the same table.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.declarations import ExternInstance
from p4emu.ir.expressions import Argument, Expr


@dataclass(frozen=True, slots=True)
class KeyElement:
    name: str  # p4c's key name: its @name, else the expression's text
    match_kind: str
    value: Expr
    bitwidth: int
    annotations: tuple
    loc: object


@dataclass(frozen=True, slots=True)
class ListedAction:
    """An entry of the `actions` list; `implicit`: the NoAction p4c adds as the default."""

    name: str  # the action's control-plane name
    binding: object
    args: tuple[Argument, ...]  # its directional parameters' arguments, in order
    annotations: tuple
    loc: object
    implicit: bool = False


@dataclass(frozen=True, slots=True)
class ActionCall:
    """The action of `default_action` or of an entry, with constant action data."""

    name: str
    binding: object
    args: tuple[int, ...]
    loc: object


@dataclass(frozen=True, slots=True)
class Entry:
    match: tuple[object, ...]  # one match value per key element (None: any)
    action: ActionCall
    priority: int  # @priority, else the 1-based position (BMv2: the smaller wins)
    loc: object


@dataclass(frozen=True, slots=True)
class Attached:
    """The action profile/selector, direct counter or direct meter a property names."""

    kind: str  # "implementation", "counters" or "meters"
    name: str  # the instance's control-plane name
    inline: ExternInstance | None = None  # an instance made in the property


@dataclass(frozen=True, slots=True)
class TableDecl:
    name: str  # control-plane name
    keys: tuple[KeyElement, ...]
    actions: tuple[ListedAction, ...]
    size: int = 1024
    default_action: ActionCall | None = None
    const_default: bool = False
    entries: tuple[Entry, ...] = ()
    is_const: bool = False  # `const entries`
    attached: tuple[Attached | Expr, ...] = ()  # in property order, with other properties' values
    idle_timeout: bool = False
    annotations: tuple = ()
    loc: object = None

    def attached_name(self, kind: str) -> str | None:
        return next((a.name for a in self.attached if isinstance(a, Attached) and a.kind == kind), None)
