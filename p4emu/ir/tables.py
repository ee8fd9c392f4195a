"""Actions and tables as the control plane sees them.

Names are p4c's fully qualified control-plane names (`MyIngress.ipv4_lpm`); ids are not
here: P4Info assigns them from the names and `@id`s (`p4emu.p4info`).
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.annotations import Annotations


@dataclass(frozen=True, slots=True)
class ActionParam:
    """A directionless action parameter: action data the control plane supplies."""

    name: str  # its @name, else the source name
    bitwidth: int
    annotations: Annotations = ()
    type_name: str | None = None  # the `type` it was declared with (P4Info type_info)


@dataclass(frozen=True, slots=True)
class Action:
    """An action the controls use: listed by a table or called directly."""

    name: str
    params: tuple[ActionParam, ...] = ()
    annotations: Annotations = ()
    explicit_id: int | None = None  # @id
    hidden: bool = False  # @hidden: in ProgramInfo, not in P4Info


@dataclass(frozen=True, slots=True)
class MatchField:
    """A table key element, in declaration order (selector elements included)."""

    name: str  # p4c's key name: the expression's text or its @name
    match_kind: str  # exact, lpm, ternary, range, optional, selector
    bitwidth: int
    annotations: Annotations = ()


@dataclass(frozen=True, slots=True)
class ActionRef:
    """An entry of a table's `actions` list."""

    action: str  # the action's name
    scope: str = "TABLE_AND_DEFAULT"  # TABLE_ONLY (@tableonly), DEFAULT_ONLY (@defaultonly)
    annotations: Annotations = ()


@dataclass(frozen=True, slots=True)
class TableEntry:
    """A row of `entries` / `const entries`."""

    match: tuple[object, ...]  # one p4emu.runtime.match value per key element (None: any)
    action: str
    args: tuple[int, ...] = ()
    priority: int = 0  # @priority, else the 1-based position (BMv2: the smaller wins)


@dataclass(frozen=True, slots=True)
class Table:
    """A table instance with everything P4Info and the switch need of it."""

    name: str
    keys: tuple[MatchField, ...] = ()
    actions: tuple[ActionRef, ...] = ()
    size: int = 1024
    default_action: str | None = None
    default_args: tuple[int, ...] = ()
    const_default: bool = False
    entries: tuple[TableEntry, ...] = ()
    is_const: bool = False  # `const entries`
    implementation: str | None = None  # action profile / selector name
    direct_counter: str | None = None
    direct_meter: str | None = None
    idle_timeout: bool = False  # support_timeout = true
    annotations: Annotations = ()
    explicit_id: int | None = None
    hidden: bool = False
