"""The STF commands as parsed, one dataclass per command. Values stay as written where
their meaning depends on the program (key values need the key's match kind and width)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    line: int


@dataclass(frozen=True)
class ActionSpec:
    name: str
    args: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Add(Command):
    table: str
    priority: int | None
    keys: tuple[tuple[str, str], ...]  # (key name as written, value text as written)
    action: ActionSpec
    entry_id: str | None = None


@dataclass(frozen=True)
class IndirectAdd(Command):
    """p4emu extension: ``table_indirect_add[_with_group] <table> [prio] k:v ... => <h>``."""

    table: str
    priority: int | None
    keys: tuple[tuple[str, str], ...]
    handle: int
    is_group: bool
    entry_id: str | None = None


@dataclass(frozen=True)
class SetDefault(Command):
    table: str
    action: ActionSpec


@dataclass(frozen=True)
class Packet(Command):
    port: int
    data: bytes


@dataclass(frozen=True)
class Expect(Command):
    port: int
    pattern: str | None  # upper-case hex nibbles and '*'; None: any packet
    exact_length: bool = False


@dataclass(frozen=True)
class NoPacket(Command):
    pass


@dataclass(frozen=True)
class Wait(Command):
    pass


@dataclass(frozen=True)
class CheckCounter(Command):
    counter: str
    index: int | None  # an index into an indexed counter ...
    entry_id: str | None  # ... or the id an `add ... = id` gave an entry
    kind: str | None  # "packets" | "bytes" | None (then packets == 0)
    op: str
    value: int


@dataclass(frozen=True)
class Remove(Command):
    entry_id: str | None  # None: all entries of all tables


@dataclass(frozen=True)
class CliCommand(Command):
    """A simple_switch_CLI pass-through command (mirroring_*, mc_*, counter_*, ...)."""

    name: str
    args: tuple[str, ...]
