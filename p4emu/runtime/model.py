"""Static description of a compiled program's control-plane objects.

The front end produces a `ProgramInfo`; P4Info generation, the run-time state, the
P4Runtime server and the STF runner all read it. Names are the fully qualified names p4c
gives (e.g. ``MyIngress.ipv4_lpm``); ids are P4Info ids (prefix << 24 | hash).
Values everywhere in p4emu are Python ints (unsigned two's-complement for int<N>).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class MatchKind(StrEnum):
    EXACT = "exact"
    LPM = "lpm"
    TERNARY = "ternary"
    RANGE = "range"
    OPTIONAL = "optional"
    SELECTOR = "selector"


@dataclass(frozen=True)
class ParamInfo:
    id: int
    name: str
    bitwidth: int


@dataclass(frozen=True)
class ActionInfo:
    id: int
    name: str
    params: tuple[ParamInfo, ...] = ()
    annotations: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActionRef:
    """An action as listed in a table's `actions` property."""

    id: int
    scope: str = "TABLE_AND_DEFAULT"  # or TABLE_ONLY (@tableonly), DEFAULT_ONLY (@defaultonly)
    annotations: tuple[str, ...] = ()


@dataclass(frozen=True)
class KeyField:
    id: int
    name: str  # p4c key name: expression text or @name; isValid() -> "$valid$"
    match_kind: MatchKind
    bitwidth: int


@dataclass(frozen=True)
class ConstEntry:
    """A `const entries` / `entries` row; match values per key field, None = don't care."""

    match: tuple[object, ...]  # FieldMatch values from runtime.match
    action_id: int
    args: tuple[int, ...]
    priority: int  # p4c: 1, 2, 3... in source order (first wins) unless @priority


@dataclass(frozen=True)
class TableInfo:
    id: int
    name: str
    keys: tuple[KeyField, ...]
    actions: tuple[ActionRef, ...]
    size: int = 1024
    default_action_id: int | None = None
    default_action_args: tuple[int, ...] = ()
    const_default_action: bool = False
    const_entries: tuple[ConstEntry, ...] = ()  # initial `entries`, const or not
    is_const: bool = False  # `const entries`: immutable from the control plane
    implementation: str | None = None  # action profile / selector instance name
    direct_counter: str | None = None
    direct_meter: str | None = None
    idle_timeout: bool = False
    annotations: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActionProfileInfo:
    id: int
    name: str
    table_ids: tuple[int, ...]
    size: int
    with_selector: bool = False
    selector_algorithm: str | None = None  # v1model HashAlgorithm name, e.g. "crc16"
    max_group_size: int = 0


class CounterUnit(StrEnum):
    PACKETS = "packets"
    BYTES = "bytes"
    BOTH = "packets_and_bytes"


@dataclass(frozen=True)
class CounterInfo:
    id: int
    name: str
    size: int
    unit: CounterUnit
    direct_table_id: int | None = None  # set for direct_counter


class MeterUnit(StrEnum):
    PACKETS = "packets"
    BYTES = "bytes"


@dataclass(frozen=True)
class MeterInfo:
    id: int
    name: str
    size: int
    unit: MeterUnit
    direct_table_id: int | None = None  # set for direct_meter


@dataclass(frozen=True)
class RegisterInfo:
    id: int
    name: str
    size: int
    bitwidth: int


@dataclass(frozen=True)
class HeaderFieldInfo:
    id: int
    name: str
    bitwidth: int


@dataclass(frozen=True)
class ControllerHeaderInfo:
    """A header annotated @controller_header("packet_in" | "packet_out")."""

    id: int
    name: str  # the annotation value
    fields: tuple[HeaderFieldInfo, ...]


@dataclass(frozen=True)
class DigestInfo:
    id: int
    name: str  # the digested struct's type name
    fields: tuple[HeaderFieldInfo, ...]


@dataclass(frozen=True)
class ValueSetInfo:
    id: int
    name: str
    size: int
    fields: tuple[KeyField, ...]


@dataclass
class ProgramInfo:
    """Everything the control plane can see of one program."""

    arch: str = "v1model"
    actions: dict[int, ActionInfo] = field(default_factory=dict)
    tables: dict[int, TableInfo] = field(default_factory=dict)
    action_profiles: dict[int, ActionProfileInfo] = field(default_factory=dict)
    counters: dict[int, CounterInfo] = field(default_factory=dict)  # incl. direct
    meters: dict[int, MeterInfo] = field(default_factory=dict)  # incl. direct
    registers: dict[int, RegisterInfo] = field(default_factory=dict)
    controller_headers: dict[int, ControllerHeaderInfo] = field(default_factory=dict)
    digests: dict[int, DigestInfo] = field(default_factory=dict)
    value_sets: dict[int, ValueSetInfo] = field(default_factory=dict)

    def by_name(self, kind: str, name: str):
        """Look up an object of `kind` (an attribute name above) by full name."""
        for obj in getattr(self, kind).values():
            if obj.name == name:
                return obj
        raise KeyError(f"no {kind[:-1]} named {name!r}")
