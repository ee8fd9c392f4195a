"""Action profiles and action selectors: members, groups, member selection.

Selection follows simple_switch_grpc (docs/v1model.md §4): the group's members are ordered
by member id, each repeated `weight` times; members whose watch port is down are skipped;
the n-th remaining one is chosen with n = hash % count. An empty (or all-down) group
selects nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from p4emu.runtime.actions import ActionCall, validate_action_call
from p4emu.runtime.errors import EntryExists, EntryNotFound, InUse, InvalidEntry, TableFull
from p4emu.runtime.model import ActionInfo, ActionProfileInfo

PortUp = Callable[[int], bool]


@dataclass(frozen=True, slots=True)
class Member:
    member_id: int
    action: ActionCall


@dataclass(frozen=True, slots=True)
class GroupMember:
    member_id: int
    weight: int = 1
    watch_port: int | None = None  # None: always active


@dataclass
class Group:
    group_id: int
    members: tuple[GroupMember, ...]
    max_size: int = 0


class ActionProfile:
    """One `action_profile` / `action_selector` instance."""

    def __init__(self, info: ActionProfileInfo, actions: Mapping[int, ActionInfo],
                 allowed_action_ids: Iterable[int], port_up: PortUp = lambda port: True) -> None:
        self.info = info
        self.actions = actions
        self.allowed = frozenset(allowed_action_ids)
        self.port_up = port_up
        self.members: dict[int, Member] = {}
        self.groups: dict[int, Group] = {}
        self._refs: dict[tuple[str, int], int] = {}  # ("member"|"group", id) -> count
        # group id -> selection slots, for groups without watch ports (whose slots only
        # change with members and groups: every change below clears it)
        self._slots: dict[int, list[Member]] = {}
        # called after every change of members or groups (p4emu.native reloads the
        # tables using this profile)
        self.on_change: list[Callable[[], None]] = []

    def _changed(self) -> None:
        for hook in self.on_change:
            hook()

    # --- references from table entries (a referenced object cannot be deleted)
    def ref(self, kind: str, obj_id: int) -> None:
        present = obj_id in (self.members if kind == "member" else self.groups)
        if not present:
            raise InvalidEntry(f"action profile {self.info.name}: no {kind} {obj_id}")
        if kind == "group" and not self.info.with_selector:
            raise InvalidEntry(f"action profile {self.info.name} has no selector: no groups")
        self._refs[(kind, obj_id)] = self._refs.get((kind, obj_id), 0) + 1

    def unref(self, kind: str, obj_id: int) -> None:
        count = self._refs.get((kind, obj_id), 0) - 1
        if count > 0:
            self._refs[(kind, obj_id)] = count
        else:
            self._refs.pop((kind, obj_id), None)

    # --- members
    def insert_member(self, member_id: int, action: ActionCall) -> None:
        self._slots.clear()
        if member_id in self.members:
            raise EntryExists(f"action profile {self.info.name}: member {member_id} exists")
        if self.info.size and len(self.members) >= self.info.size:
            raise TableFull(f"action profile {self.info.name} is full ({self.info.size})")
        validate_action_call(action, self.actions, self.allowed,
                             f"action profile {self.info.name} member {member_id}")
        self.members[member_id] = Member(member_id, action)
        self._changed()

    def modify_member(self, member_id: int, action: ActionCall) -> None:
        self._slots.clear()
        if member_id not in self.members:
            raise EntryNotFound(f"action profile {self.info.name}: no member {member_id}")
        validate_action_call(action, self.actions, self.allowed,
                             f"action profile {self.info.name} member {member_id}")
        self.members[member_id] = Member(member_id, action)
        self._changed()

    def delete_member(self, member_id: int) -> None:
        self._slots.clear()
        if member_id not in self.members:
            raise EntryNotFound(f"action profile {self.info.name}: no member {member_id}")
        if self._refs.get(("member", member_id)):
            raise InUse(f"action profile {self.info.name}: member {member_id} is in use")
        self.members.pop(member_id)
        self._changed()

    # --- groups
    def _check_group(self, group: Group) -> None:
        name = self.info.name
        if not self.info.with_selector:
            raise InvalidEntry(f"action profile {name} has no selector: no groups")
        limit = self.info.max_group_size
        if group.max_size and limit and group.max_size > limit:
            raise InvalidEntry(f"group {group.group_id}: max_size {group.max_size} exceeds "
                               f"{name}'s max group size {limit}")
        seen: set[int] = set()
        for gm in group.members:
            if gm.member_id not in self.members:
                raise InvalidEntry(f"group {group.group_id}: no member {gm.member_id}")
            if gm.member_id in seen:
                raise InvalidEntry(f"group {group.group_id}: member {gm.member_id} twice")
            if gm.weight < 1:
                raise InvalidEntry(f"group {group.group_id}: weight must be >= 1")
            seen.add(gm.member_id)
        total = sum(gm.weight for gm in group.members)
        cap = group.max_size or limit
        if cap and total > cap:
            raise TableFull(f"group {group.group_id}: total weight {total} exceeds {cap}")

    def _set_group(self, group: Group) -> None:
        self._slots.clear()
        old = self.groups.get(group.group_id)
        if old is not None:
            for gm in old.members:
                self.unref("member", gm.member_id)
        ordered = tuple(sorted(group.members, key=lambda gm: gm.member_id))
        group = Group(group.group_id, ordered, group.max_size)
        for gm in ordered:
            self._refs[("member", gm.member_id)] = self._refs.get(("member", gm.member_id),
                                                                  0) + 1
        self.groups[group.group_id] = group
        self._changed()

    def insert_group(self, group_id: int, members: Iterable[GroupMember] = (),
                     max_size: int = 0) -> None:
        if group_id in self.groups:
            raise EntryExists(f"action profile {self.info.name}: group {group_id} exists")
        group = Group(group_id, tuple(members), max_size)
        self._check_group(group)
        self._set_group(group)

    def modify_group(self, group_id: int, members: Iterable[GroupMember],
                     max_size: int | None = None) -> None:
        old = self.groups.get(group_id)
        if old is None:
            raise EntryNotFound(f"action profile {self.info.name}: no group {group_id}")
        group = Group(group_id, tuple(members), old.max_size if max_size is None else max_size)
        self._check_group(group)
        self._set_group(group)

    def delete_group(self, group_id: int) -> None:
        self._slots.clear()
        group = self.groups.get(group_id)
        if group is None:
            raise EntryNotFound(f"action profile {self.info.name}: no group {group_id}")
        if self._refs.get(("group", group_id)):
            raise InUse(f"action profile {self.info.name}: group {group_id} is in use")
        for gm in group.members:
            self.unref("member", gm.member_id)
        del self.groups[group_id]
        self._changed()

    # --- data plane
    def active_members(self, group_id: int) -> list[Member]:
        """The group's selectable slots in selection order (weights expanded)."""
        return list(self._active_slots(group_id))

    def _active_slots(self, group_id: int) -> list[Member]:
        """active_members, shared with the cache (not to be modified)."""
        slots = self._slots.get(group_id)
        if slots is not None:
            return slots
        group = self.groups.get(group_id)
        if group is None:
            return []
        slots = []
        watched = False
        for gm in group.members:
            if gm.watch_port is not None:
                watched = True
                if not self.port_up(gm.watch_port):
                    continue
            slots.extend([self.members[gm.member_id]] * gm.weight)
        if not watched:  # port state cannot change these slots
            self._slots[group_id] = slots
        return slots

    def select(self, group_id: int, hash_value: int) -> Member | None:
        """The member chosen for `hash_value`, or None for an empty/all-down group."""
        slots = self._active_slots(group_id)
        if not slots:
            return None
        return slots[(hash_value & 0xFFFFFFFF) % len(slots)]

    def reset(self) -> None:
        self._slots.clear()
        self.members.clear()
        self.groups.clear()
        self._refs.clear()
        self._changed()
