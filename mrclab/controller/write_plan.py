"""Diff two SwitchStates into ordered write phases (pure).

P4Runtime does not order the updates inside one WriteRequest, so dependent updates go in
separate phases, each one batch:
  1 member inserts/modifies   2 group inserts/modifies   3 table inserts/modifies
  4 table deletes             5 group deletes             6 member deletes
(multicast groups go with the tables).
Inserting the replacement entry (phase 3) before deleting the old one (phase 4) means a
destination moving between `downlink` and `uplink` is never without a route.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mrclab.controller.switch_state import SwitchState


class OpType(StrEnum):
    INSERT = "INSERT"
    MODIFY = "MODIFY"
    DELETE = "DELETE"


class Kind(StrEnum):
    MEMBER = "member"
    GROUP = "group"
    DOWNLINK = "downlink"
    UPLINK = "uplink"
    SOURCE_LABEL = "source_label"
    THRESHOLDS = "thresholds"
    SPRAY = "spray"
    MULTICAST = "multicast"


@dataclass(frozen=True)
class Op:
    type: OpType
    kind: Kind
    key: object  # member id, group id, prefix, label, port, multicast group; None for spray
    value: object = None  # port, member-id set, group id, (trim, ecn), (mode, salt), ports


# written with the tables: the multicast groups depend on nothing, nothing depends on them
TABLE_KINDS = (Kind.DOWNLINK, Kind.UPLINK, Kind.SOURCE_LABEL, Kind.THRESHOLDS, Kind.MULTICAST)


def _diff_map(kind: Kind, current: dict, desired: dict) -> tuple[list[Op], list[Op]]:
    """(inserts + modifies, deletes) turning `current` into `desired`."""
    writes: list[Op] = []
    deletes: list[Op] = []
    for key in sorted(desired, key=repr):
        value = desired[key]
        if key not in current:
            writes.append(Op(OpType.INSERT, kind, key, value))
        elif current[key] != value:
            writes.append(Op(OpType.MODIFY, kind, key, value))
    for key in sorted(current, key=repr):
        if key not in desired:
            deletes.append(Op(OpType.DELETE, kind, key, current[key]))
    return writes, deletes


def plan(current: SwitchState, desired: SwitchState) -> list[list[Op]]:
    """Non-empty phases of ops, in the order they must be written."""
    member_writes, member_deletes = _diff_map(Kind.MEMBER, current.members, desired.members)
    group_writes, group_deletes = _diff_map(Kind.GROUP, current.groups, desired.groups)
    table_writes: list[Op] = []
    table_deletes: list[Op] = []
    for kind in TABLE_KINDS:
        attr = kind.value
        writes, deletes = _diff_map(kind, getattr(current, attr), getattr(desired, attr))
        table_writes += writes
        table_deletes += deletes
    # mode and salt share one default entry: a difference in either rewrites both
    spray = (desired.spray_mode, desired.spray_salt)
    if None not in spray and spray != (current.spray_mode, current.spray_salt):
        table_writes.append(Op(OpType.MODIFY, Kind.SPRAY, None, spray))
    phases = [member_writes, group_writes, table_writes, table_deletes, group_deletes,
              member_deletes]
    return [phase for phase in phases if phase]


def apply_ops(state: SwitchState, ops: list[Op]) -> None:
    """Update a state mirror with ops that were written successfully."""
    for op in ops:
        if op.kind is Kind.SPRAY:
            state.spray_mode, state.spray_salt = op.value  # type: ignore[misc]
            continue
        table: dict = getattr(state, {Kind.MEMBER: "members", Kind.GROUP: "groups"}.get(
            op.kind, op.kind.value))
        if op.type is OpType.DELETE:
            table.pop(op.key, None)
        else:
            table[op.key] = op.value
