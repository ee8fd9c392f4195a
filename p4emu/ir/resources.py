"""Stateful extern instances the control plane reads and writes: action profiles and
selectors, counters, meters, registers and parser value sets."""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.annotations import Annotations


@dataclass(frozen=True, slots=True)
class ActionProfile:
    """`action_profile` or `action_selector` (declared or inline in a table)."""

    name: str
    size: int
    selector: str | None = None  # the selector's hash algorithm; None: a plain profile
    tables: tuple[str, ...] = ()  # tables whose implementation it is, in program order
    max_group_size: int = 0  # @max_group_size of a selector (p4c ignores it on profiles)
    annotations: Annotations = ()
    explicit_id: int | None = None


@dataclass(frozen=True, slots=True)
class Counter:
    """`counter` or `direct_counter`."""

    name: str
    size: int  # 0 for a direct counter
    unit: str  # packets, bytes, packets_and_bytes
    direct: bool = False
    direct_table: str | None = None  # the table a direct counter is attached to
    annotations: Annotations = ()
    explicit_id: int | None = None


@dataclass(frozen=True, slots=True)
class Meter:
    """`meter` or `direct_meter`."""

    name: str
    size: int  # 0 for a direct meter
    unit: str  # packets, bytes
    direct: bool = False
    direct_table: str | None = None  # the table a direct meter is attached to
    annotations: Annotations = ()
    explicit_id: int | None = None


@dataclass(frozen=True, slots=True)
class Register:
    """`register<T>`; T is bit<W>, int<W> or a serializable enum (as bits)."""

    name: str
    size: int
    bitwidth: int
    signed: bool = False
    is_bool: bool = False
    annotations: Annotations = ()
    explicit_id: int | None = None


@dataclass(frozen=True, slots=True)
class ValueSetField:
    """A member of a value set's type: a struct field, or the one unnamed bit<W>."""

    name: str  # "" for a bit<W> value set
    bitwidth: int
    annotations: Annotations = ()  # @match picks a struct member's match type


@dataclass(frozen=True, slots=True)
class ValueSet:
    """`value_set<T>(size)` of a parser."""

    name: str
    size: int
    fields: tuple[ValueSetField, ...]
    struct: bool = False  # T is a struct (else bit<W>)
    annotations: Annotations = ()
    explicit_id: int | None = None
