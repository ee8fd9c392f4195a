"""Table entry matches and actions: P4Runtime protobuf <-> runtime values.

Validation follows the P4Runtime spec: a key field is omitted for "don't care" (a ternary
with mask 0, an LPM of prefix 0, a full range, an unset optional), never sent as such;
value bits outside the mask/prefix must be zero; exact fields are mandatory; each field
appears at most once; the priority is set exactly for tables with ternary, range or
optional keys.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2

from p4emu.runtime.actions import ActionCall
from p4emu.runtime.match import Exact, FieldMatch, Lpm, Optional, Range, Ternary, lpm_mask
from p4emu.runtime.model import ActionInfo, KeyField, MatchKind, TableInfo
from p4emu.switch.bytestrings import decode, encode
from p4emu.switch.p4rt_errors import P4RTError, invalid

PRIORITY_KINDS = frozenset({MatchKind.TERNARY, MatchKind.RANGE, MatchKind.OPTIONAL})


@dataclass(frozen=True, slots=True)
class MemberRef:
    member_id: int


@dataclass(frozen=True, slots=True)
class GroupRef:
    group_id: int


EntryAction = ActionCall | MemberRef | GroupRef


def needs_priority(table: TableInfo) -> bool:
    return any(key.match_kind in PRIORITY_KINDS for key in table.keys)



def check_priority(table: TableInfo, priority: int) -> None:
    if needs_priority(table):
        if priority <= 0:
            raise invalid(f"table {table.name}: priority must be > 0 (ternary/range/optional)")
        if priority > 0x7FFFFFFF:
            raise invalid(f"table {table.name}: priority {priority} exceeds 2^31-1")
    elif priority != 0:
        raise invalid(f"table {table.name}: priority must be 0 for a table without "
                      "ternary/range/optional keys")


def _decode_field(key: KeyField, pb: p4runtime_pb2.FieldMatch) -> FieldMatch:
    what = f"match field {key.name}"
    width = key.bitwidth
    kind = key.match_kind
    which = pb.WhichOneof("field_match_type")
    expected = {MatchKind.EXACT: "exact", MatchKind.LPM: "lpm", MatchKind.TERNARY: "ternary",
                MatchKind.RANGE: "range", MatchKind.OPTIONAL: "optional"}.get(kind)
    if which != expected:
        raise invalid(f"{what}: expected a {kind} match, got {which}")
    if kind == MatchKind.EXACT:
        return Exact(decode(pb.exact.value, width, what))
    if kind == MatchKind.OPTIONAL:
        return Optional(decode(pb.optional.value, width, what))
    if kind == MatchKind.LPM:
        plen = pb.lpm.prefix_len
        if not 0 < plen <= width:
            raise invalid(f"{what}: prefix length {plen} must be in 1..{width} (omit the "
                          "field for a zero-length prefix)")
        value = decode(pb.lpm.value, width, what)
        if value & ~lpm_mask(plen, width):
            raise invalid(f"{what}: value has bits set past the /{plen} prefix")
        return Lpm(value, plen)
    if kind == MatchKind.TERNARY:
        value = decode(pb.ternary.value, width, what)
        mask = decode(pb.ternary.mask, width, f"{what} mask")
        if mask == 0:
            raise invalid(f"{what}: a zero mask means don't care: omit the field")
        if value & ~mask:
            raise invalid(f"{what}: value has bits set outside the mask")
        return Ternary(value, mask)
    low = decode(pb.range.low, width, f"{what} low")
    high = decode(pb.range.high, width, f"{what} high")
    if low > high:
        raise invalid(f"{what}: range low {low} > high {high}")
    if low == 0 and high == (1 << width) - 1:
        raise invalid(f"{what}: a full range means don't care: omit the field")
    return Range(low, high)


def match_keys(table: TableInfo) -> tuple[KeyField, ...]:
    """The key fields P4Info lists (selector fields are hashed, never matched)."""
    return tuple(k for k in table.keys if k.match_kind != MatchKind.SELECTOR)


def decode_match(table: TableInfo,
                 fields: Sequence[p4runtime_pb2.FieldMatch]) -> tuple[FieldMatch | None, ...]:
    """One FieldMatch (or None for don't care) per key field, in key order."""
    keys = match_keys(table)
    by_id = {key.id: i for i, key in enumerate(keys)}
    out: list[FieldMatch | None] = [None] * len(keys)
    seen: set[int] = set()
    for pb in fields:
        index = by_id.get(pb.field_id)
        if index is None:
            raise invalid(f"table {table.name}: no match field id {pb.field_id}")
        if pb.field_id in seen:
            raise invalid(f"table {table.name}: match field id {pb.field_id} given twice")
        seen.add(pb.field_id)
        out[index] = _decode_field(keys[index], pb)
    for key, fm in zip(keys, out, strict=True):
        if fm is None and key.match_kind == MatchKind.EXACT:
            raise invalid(f"table {table.name}: exact match field {key.name} is missing")
    return tuple(out)


def encode_match(table: TableInfo,
                 match: Sequence[FieldMatch | None]) -> list[p4runtime_pb2.FieldMatch]:
    """Protobuf field matches in canonical form; don't-care fields are left out."""
    out = []
    for key, fm in zip(match_keys(table), match, strict=True):
        if fm is None:
            continue
        pb = p4runtime_pb2.FieldMatch(field_id=key.id)
        if isinstance(fm, Exact):
            pb.exact.value = encode(fm.value)
        elif isinstance(fm, Optional):
            pb.optional.value = encode(fm.value)
        elif isinstance(fm, Lpm):
            pb.lpm.value = encode(fm.value)
            pb.lpm.prefix_len = fm.prefix_len
        elif isinstance(fm, Ternary):
            pb.ternary.value = encode(fm.value)
            pb.ternary.mask = encode(fm.mask)
        else:
            pb.range.low = encode(fm.low)
            pb.range.high = encode(fm.high)
        out.append(pb)
    return out


def decode_action_call(actions: Mapping[int, ActionInfo],
                       pb: p4runtime_pb2.Action) -> ActionCall:
    """An ActionCall with every parameter given once and fitting its width."""
    info = actions.get(pb.action_id)
    if info is None:
        raise invalid(f"no action with id {pb.action_id}")
    values: dict[int, int] = {}
    widths = {param.id: param for param in info.params}
    for param_pb in pb.params:
        param = widths.get(param_pb.param_id)
        if param is None:
            raise invalid(f"action {info.name}: no parameter id {param_pb.param_id}")
        if param.id in values:
            raise invalid(f"action {info.name}: parameter {param.name} given twice")
        values[param.id] = decode(param_pb.value, param.bitwidth,
                                  f"action {info.name} parameter {param.name}")
    missing = [param.name for param in info.params if param.id not in values]
    if missing:
        raise invalid(f"action {info.name}: missing parameters {', '.join(missing)}")
    return ActionCall(info.id, tuple(values[param.id] for param in info.params))


def encode_action_call(actions: Mapping[int, ActionInfo],
                       call: ActionCall) -> p4runtime_pb2.Action:
    pb = p4runtime_pb2.Action(action_id=call.action_id)
    info = actions.get(call.action_id)
    params = info.params if info else ()
    for param, value in zip(params, call.args, strict=False):
        pb.params.add(param_id=param.id, value=encode(value))
    return pb


def check_action_scope(table: TableInfo, action_id: int, *, default: bool) -> None:
    """The action must be listed in the table (INVALID_ARGUMENT) and allowed for entries
    or the default (PERMISSION_DENIED: spec 9.1.2, PI's action scope check)."""
    for ref in table.actions:
        if ref.id == action_id:
            if default and ref.scope == "TABLE_ONLY":
                raise P4RTError(code_pb2.PERMISSION_DENIED,
                                f"table {table.name}: action {action_id} is @tableonly")
            if not default and ref.scope == "DEFAULT_ONLY":
                raise P4RTError(code_pb2.PERMISSION_DENIED,
                                f"table {table.name}: action {action_id} is @defaultonly")
            return
    raise invalid(f"table {table.name}: action id {action_id} is not one of its actions")


def decode_table_action(table: TableInfo, actions: Mapping[int, ActionInfo],
                        pb: p4runtime_pb2.TableAction, *, default: bool) -> EntryAction:
    which = pb.WhichOneof("type")
    indirect = table.implementation is not None
    if which == "action":
        if indirect:
            raise invalid(f"table {table.name} is indirect: give a member or group id")
        call = decode_action_call(actions, pb.action)
        check_action_scope(table, call.action_id, default=default)
        return call
    if which in ("action_profile_member_id", "action_profile_group_id"):
        if not indirect:
            raise invalid(f"table {table.name} is direct: give an action")
        if which == "action_profile_member_id":
            return MemberRef(pb.action_profile_member_id)
        return GroupRef(pb.action_profile_group_id)
    if which == "action_profile_action_set":
        raise P4RTError(code_pb2.UNIMPLEMENTED, "one-shot action selector programming")
    raise invalid(f"table {table.name}: the entry has no action")


def encode_table_action(actions: Mapping[int, ActionInfo],
                        action: EntryAction) -> p4runtime_pb2.TableAction:
    pb = p4runtime_pb2.TableAction()
    if isinstance(action, MemberRef):
        pb.action_profile_member_id = action.member_id
    elif isinstance(action, GroupRef):
        pb.action_profile_group_id = action.group_id
    else:
        pb.action.CopyFrom(encode_action_call(actions, action))
    return pb
