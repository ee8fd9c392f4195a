"""Small ProgramInfo builders for the run-time state tests."""

from __future__ import annotations

from p4emu.runtime.model import (
    ActionInfo,
    ActionProfileInfo,
    ActionRef,
    ConstEntry,
    KeyField,
    MatchKind,
    ParamInfo,
    TableInfo,
)

NOACTION = ActionInfo(1, "NoAction")
FWD = ActionInfo(2, "MyIngress.fwd", (ParamInfo(1, "port", 9),))
DROP = ActionInfo(3, "MyIngress.drop")
ACTIONS = {a.id: a for a in (NOACTION, FWD, DROP)}
REFS = (ActionRef(1), ActionRef(2), ActionRef(3))


def table_info(*keys: tuple[str, MatchKind, int], size: int = 1024,
               const_entries: tuple[ConstEntry, ...] = (), is_const: bool = False,
               implementation: str | None = None, **kw) -> TableInfo:
    fields = tuple(KeyField(i + 1, name, kind, width) for i, (name, kind, width) in
                   enumerate(keys))
    return TableInfo(id=100, name="MyIngress.t", keys=fields, actions=REFS, size=size,
                     default_action_id=1, const_entries=const_entries, is_const=is_const,
                     implementation=implementation, **kw)


def selector_info(max_group_size: int = 8) -> ActionProfileInfo:
    return ActionProfileInfo(id=200, name="MyIngress.sel", table_ids=(100,), size=64,
                             with_selector=True, selector_algorithm="crc16",
                             max_group_size=max_group_size)
