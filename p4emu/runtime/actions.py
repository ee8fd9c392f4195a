"""Action calls as stored in table entries, defaults and action-profile members."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from p4emu.runtime.errors import InvalidEntry
from p4emu.runtime.model import ActionInfo


@dataclass(frozen=True, slots=True)
class ActionCall:
    action_id: int
    args: tuple[int, ...] = ()


def validate_action_call(call: ActionCall, actions: Mapping[int, ActionInfo],
                         allowed: Iterable[int], where: str) -> None:
    """Raise InvalidEntry unless `call` names an allowed action with fitting arguments."""
    info = actions.get(call.action_id)
    if info is None or call.action_id not in set(allowed):
        raise InvalidEntry(f"{where}: action id {call.action_id} is not allowed here")
    if len(call.args) != len(info.params):
        raise InvalidEntry(f"{where}: action {info.name} takes {len(info.params)} "
                           f"arguments, got {len(call.args)}")
    for param, arg in zip(info.params, call.args, strict=True):
        if not 0 <= arg < (1 << param.bitwidth):
            raise InvalidEntry(f"{where}: argument {param.name}={arg} of {info.name} does "
                               f"not fit bit<{param.bitwidth}>")
