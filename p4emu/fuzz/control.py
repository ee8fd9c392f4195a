"""Random control-plane writes within a program's P4Info: table entries (every match
kind, within the key widths), modifies and deletes, default actions, action-profile
members and groups (weights, watch ports), multicast groups and register cells.

A write is generated once, as plain data (`Op`), from one side's state, then applied to
each side's `DeviceState` (`apply`), so both sides see the same writes; `apply` returns
the outcome ("ok" or the error's class name), which must agree too. Action arguments and
key values lean to boundary values and to ports; exact, lpm and ternary keys on header
fields are recorded in `planted` so that the frame generator can send frames that hit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from p4emu.runtime.action_profiles import GroupMember
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.device import DeviceState
from p4emu.runtime.errors import RuntimeStateError
from p4emu.runtime.match import Exact, Lpm, Optional, Range, Ternary, lpm_mask
from p4emu.runtime.model import MatchKind
from p4emu.runtime.tables import TableEntry

PORTS = (0, 1, 2, 3, 4, 5, 7, 255, 510, 511)


@dataclass(frozen=True)
class Op:
    kind: str
    target: str  # table / profile / register name ("" for multicast)
    args: tuple

    def describe(self) -> str:
        return f"{self.kind} {self.target} {self.args!r}".replace("  ", " ")


def _value(rng: random.Random, width: int) -> int:
    full = (1 << width) - 1
    r = rng.random()
    if r < 0.3:
        return rng.choice((0, 1, full, max(full - 1, 0), 1 << (width - 1)))
    if r < 0.55:
        return rng.randrange(min(full, 16) + 1)
    return rng.randrange(full + 1)


def _arg(rng: random.Random, width: int, name: str) -> int:
    if width == 9 or "port" in name:  # egress ports: the usual ones, or any 9-bit value
        r = rng.random()
        if r < 0.6:
            return rng.choice(PORTS) & ((1 << width) - 1)
        return rng.randrange(1 << width)
    return _value(rng, width)


def _header_field(key_name: str) -> tuple[str, str] | None:
    """("hdr.ipv4", "dstAddr") of a key named after a header field."""
    head, _, field = key_name.rpartition(".")
    if not head or "(" in key_name or "$" in key_name or "[" in key_name:
        return None
    return head, field


class ControlFuzzer:
    """Writes for one program; `planted` collects key values on header fields."""

    def __init__(self, rng: random.Random, state: DeviceState,
                 planted: dict[tuple[str, str], list[int]] | None = None) -> None:
        self.rng = rng
        self.planted = planted if planted is not None else {}
        info = state.info
        self.tables = [t for t in sorted(info.tables.values(), key=lambda t: t.name)
                       if not t.is_const and not t.const_entries
                       and t.direct_meter is None and not t.idle_timeout]
        self.defaults = [t for t in sorted(info.tables.values(), key=lambda t: t.name)
                         if not t.const_default_action and t.implementation is None]
        self.profiles = sorted(info.action_profiles.values(), key=lambda p: p.name)
        self.registers = sorted(info.registers.values(), key=lambda r: r.name)
        self.actions = info.actions
        kinds = ["entry"] * 8 + ["delete", "modify"]
        if self.defaults:
            kinds += ["default"]
        if self.profiles:
            kinds += ["member"] * 3 + ["group"] * 2 + ["member_modify", "group_delete"]
        kinds += ["mcast"]
        if self.registers:
            kinds += ["register"]
        self.kinds = kinds if self.tables or self.profiles else [
            k for k in kinds if k not in ("entry", "delete", "modify")]

    # -- generation --------------------------------------------------------------------------
    def next(self, state: DeviceState) -> Op:
        """One write, generated from `state` (side 0's)."""
        rng = self.rng
        kind = rng.choice(self.kinds)
        if kind in ("entry", "delete", "modify") and not self.tables:
            kind = "mcast"
        if kind == "entry":
            return self._entry(state)
        if kind in ("delete", "modify"):
            t = rng.choice(self.tables)
            entries = [e for e in state.tables[t.name].entries() if not e.is_const]
            if not entries:
                return self._entry(state)
            e = rng.choice(entries)
            if kind == "delete":
                return Op("delete", t.name, (e.match, e.priority))
            target = self._target(state, t)
            return Op("modify", t.name, (e.match, e.priority, target))
        if kind == "default":
            t = rng.choice(self.defaults)
            refs = [r for r in t.actions if r.scope != "TABLE_ONLY"]
            if not refs:
                return Op("mcast", "", self._mcast())
            return Op("default", t.name, (self._call(rng.choice(refs).id),))
        if kind in ("member", "member_modify"):
            p = rng.choice(self.profiles)
            allowed = sorted(state.action_profiles[p.name].allowed)
            if not allowed:
                return Op("mcast", "", self._mcast())
            return Op(kind, p.name, (rng.randrange(1, 12), self._call(rng.choice(allowed))))
        if kind in ("group", "group_delete"):
            p = rng.choice(self.profiles)
            prof = state.action_profiles[p.name]
            gid = rng.randrange(1, 6)
            if kind == "group_delete":
                return Op(kind, p.name, (gid,))
            mids = sorted(prof.members)
            chosen = rng.sample(mids, rng.randrange(min(len(mids), 5) + 1)) if mids else []
            members = tuple((m, rng.choice((1, 1, 1, 2, 3, 17, 1500)),
                             rng.choice((None, None, None, 1, 2, 3, 8))) for m in chosen)
            return Op("group", p.name, (gid, members))
        if kind == "register":
            r = rng.choice(self.registers)
            return Op("register", r.name, (rng.randrange(r.size + 2), _value(rng, r.bitwidth)))
        return Op("mcast", "", self._mcast())

    def _mcast(self) -> tuple:
        rng = self.rng
        gid = rng.randrange(1, 5)
        replicas = tuple((rng.randrange(3), rng.choice(PORTS)) for _ in range(rng.randrange(4)))
        return (rng.choice(("insert", "modify", "delete")), gid, replicas)

    def _call(self, action_id: int) -> ActionCall:
        a = self.actions[action_id]
        return ActionCall(action_id, tuple(_arg(self.rng, p.bitwidth, p.name) for p in a.params))

    def _target(self, state: DeviceState, t) -> tuple:
        rng = self.rng
        if t.implementation is None:
            refs = [r for r in t.actions if r.scope != "DEFAULT_ONLY"]
            return ("action", self._call(rng.choice(refs).id)) if refs else ("action", None)
        prof = state.tables[t.name].profile
        groups, members = sorted(prof.groups), sorted(prof.members)
        if groups and (rng.random() < 0.5 or not members):
            return ("group", rng.choice(groups))
        if members:
            return ("member", rng.choice(members))
        return ("member", rng.randrange(1, 12))  # none yet: refused

    def _entry(self, state: DeviceState) -> Op:
        rng = self.rng
        t = rng.choice(self.tables)
        match = []
        needs_priority = False
        for k in t.keys:
            if k.match_kind == MatchKind.SELECTOR:
                continue
            w = k.bitwidth
            full = (1 << w) - 1
            kind = k.match_kind
            hf = _header_field(k.name)
            if kind == MatchKind.EXACT:
                v = _value(rng, w)
                fm = Exact(v)
            elif kind == MatchKind.LPM:
                plen = rng.choice((0, 1, w // 4, w // 2, w - 1, w, rng.randrange(w + 1)))
                v = _value(rng, w) & lpm_mask(plen, w)
                fm = Lpm(v, plen) if plen else None
            elif kind == MatchKind.TERNARY:
                needs_priority = True
                mask = rng.choice((0, full, 1 << (w - 1), rng.randrange(full + 1)))
                v = _value(rng, w) & mask
                fm = Ternary(v, mask) if mask else None
            elif kind == MatchKind.RANGE:
                needs_priority = True
                lo, hi = sorted((_value(rng, w), _value(rng, w)))
                fm = Range(lo, hi) if (lo, hi) != (0, full) else None
                v = lo
            else:  # optional
                needs_priority = True
                v = _value(rng, w)
                fm = Optional(v) if rng.random() < 0.7 else None
            if hf is not None and fm is not None:
                pool = self.planted.setdefault(hf, [])
                if len(pool) < 32:
                    pool.append(v)
            match.append(fm)
        priority = rng.randrange(1, 40) if needs_priority else 0
        return Op("insert", t.name, (tuple(match), priority, self._target(state, t)))


# -- application -----------------------------------------------------------------------------
def apply(state: DeviceState, op: Op) -> str:
    """Apply `op` to `state`: "ok" or the refusing error's class name."""
    try:
        _apply(state, op)
    except RuntimeStateError as exc:
        return type(exc).__name__
    return "ok"


def _entry(match, priority, target) -> TableEntry:
    kind, value = target
    if kind == "action":
        return TableEntry(match=match, priority=priority, action=value)
    if kind == "member":
        return TableEntry(match=match, priority=priority, member_id=value)
    return TableEntry(match=match, priority=priority, group_id=value)


def _apply(state: DeviceState, op: Op) -> None:
    k, a = op.kind, op.args
    if k == "insert":
        state.tables[op.target].insert(_entry(*a))
    elif k == "modify":
        state.tables[op.target].modify(_entry(*a))
    elif k == "delete":
        state.tables[op.target].delete(TableEntry(match=a[0], priority=a[1]))
    elif k == "default":
        state.tables[op.target].set_default(a[0])
    elif k == "member":
        state.action_profiles[op.target].insert_member(*a)
    elif k == "member_modify":
        state.action_profiles[op.target].modify_member(*a)
    elif k == "group":
        prof = state.action_profiles[op.target]
        gid, members = a
        gms = [GroupMember(m, w, watch) for m, w, watch in members]
        if gid in prof.groups:
            prof.modify_group(gid, gms)
        else:
            prof.insert_group(gid, gms)
    elif k == "group_delete":
        state.action_profiles[op.target].delete_group(a[0])
    elif k == "register":
        state.registers[op.target].set(*a)
    elif k == "mcast":
        what, gid, replicas = a
        if what == "insert":
            state.pre.insert_group(gid, replicas)
        elif what == "modify":
            state.pre.modify_group(gid, replicas)
        else:
            state.pre.delete_group(gid)
    else:
        raise ValueError(f"unknown write {k}")
