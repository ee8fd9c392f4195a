"""All run-time state of one device, built from a ProgramInfo.

Every collection is a dict keyed by full name AND by P4Info id (both point at the same
object). `resolve_*` add p4c STF-style suffix resolution (``t`` finds ``MyIngress.t``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TypeVar

from p4emu.runtime.action_profiles import ActionProfile, PortUp
from p4emu.runtime.counters import CounterArray, CounterData
from p4emu.runtime.digests import DigestQueue
from p4emu.runtime.errors import InvalidEntry
from p4emu.runtime.meters import Clock, MeterArray, MeterConfig, monotonic_clock
from p4emu.runtime.model import ActionInfo, CounterInfo, MeterInfo, ProgramInfo
from p4emu.runtime.pre import Pre
from p4emu.runtime.registers import RegisterArray
from p4emu.runtime.tables import Table, TableEntry
from p4emu.runtime.value_sets import ValueSet

T = TypeVar("T")


class DirectCounter:
    """A `direct_counter`: its cells live in the entries of `table`."""

    def __init__(self, info: CounterInfo, table: Table) -> None:
        self.info = info
        self.table = table

    def read(self, entry: TableEntry) -> CounterData:
        return entry.counter

    def write(self, entry: TableEntry, packets: int, nbytes: int) -> None:
        entry.counter = CounterData(packets, nbytes)

    def reset(self) -> None:
        for entry in self.table.entries():
            entry.counter = CounterData()


class DirectMeter:
    """A `direct_meter`: its cells live in the entries of `table`."""

    def __init__(self, info: MeterInfo, table: Table) -> None:
        self.info = info
        self.table = table

    def get_config(self, entry: TableEntry) -> MeterConfig | None:
        return entry.meter_config

    def set_config(self, entry: TableEntry, config: MeterConfig | None) -> None:
        self.table.set_meter_config(entry, config)


def _resolve(objects: dict, name: str, kind: str, candidates: Iterable[T] | None = None) -> T:
    """Exact full name, else the unique object whose name ends with ``.name``."""
    pool = list(candidates) if candidates is not None else [
        obj for key, obj in objects.items() if isinstance(key, str)]
    exact = [obj for obj in pool if obj_name(obj) == name]
    if exact:
        return exact[0]
    hits = [obj for obj in pool if obj_name(obj).endswith("." + name)]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise KeyError(f"no {kind} named {name!r}")
    raise KeyError(f"{kind} name {name!r} is ambiguous: "
                   + ", ".join(sorted(obj_name(o) for o in hits)))


def obj_name(obj: object) -> str:
    info = getattr(obj, "info", obj)
    return info.name  # type: ignore[attr-defined]


class DeviceState:
    """Tables, action profiles, externs, PRE and digests of one device."""

    def __init__(self, info: ProgramInfo, port_up: PortUp, clock_us: Clock,
                 rng: random.Random | None = None) -> None:
        self.info = info
        self.port_up = port_up
        self.clock_us = clock_us
        # what v1model's random() draws from: seeded by the simulator (one stream per
        # switch, so a run repeats), from the OS otherwise, as BMv2
        self.rng = rng if rng is not None else random.Random()
        self.actions: dict[int | str, ActionInfo] = {}
        for a in info.actions.values():
            self.actions[a.id] = self.actions[a.name] = a
        self.action_profiles: dict[int | str, ActionProfile] = {}
        for p in info.action_profiles.values():
            allowed = {ref.id for tid in p.table_ids if tid in info.tables
                       for ref in info.tables[tid].actions}
            self._put(self.action_profiles, p.id, p.name,
                      ActionProfile(p, info.actions, allowed, port_up))
        direct_meters = {m.direct_table_id: m for m in info.meters.values()
                         if m.direct_table_id is not None}
        self.tables: dict[int | str, Table] = {}
        for t in info.tables.values():
            profile = None
            if t.implementation is not None:
                profile = self._lookup_profile(t.implementation, t.id)
            meter = direct_meters.get(t.id)
            if meter is None and t.direct_meter is not None:
                meter = next((m for m in info.meters.values() if m.name == t.direct_meter), None)
            self._put(self.tables, t.id, t.name,
                      Table(t, info.actions, profile, meter, clock_us))
        self.counters: dict[int | str, CounterArray | DirectCounter] = {}
        for c in info.counters.values():
            table_id = c.direct_table_id
            if table_id is None and c.name in {t.direct_counter for t in info.tables.values()}:
                table_id = next(t.id for t in info.tables.values() if t.direct_counter == c.name)
            obj = (CounterArray(c) if table_id is None
                   else DirectCounter(c, self.tables[table_id]))
            self._put(self.counters, c.id, c.name, obj)
        self.meters: dict[int | str, MeterArray | DirectMeter] = {}
        for m in info.meters.values():
            table_id = m.direct_table_id
            if table_id is None and m.name in {t.direct_meter for t in info.tables.values()}:
                table_id = next(t.id for t in info.tables.values() if t.direct_meter == m.name)
            mobj = (MeterArray(m, clock_us) if table_id is None
                    else DirectMeter(m, self.tables[table_id]))
            self._put(self.meters, m.id, m.name, mobj)
        self.registers: dict[int | str, RegisterArray] = {}
        for r in info.registers.values():
            self._put(self.registers, r.id, r.name, RegisterArray(r))
        self.value_sets: dict[int | str, ValueSet] = {}
        for v in info.value_sets.values():
            self._put(self.value_sets, v.id, v.name, ValueSet(v))
        self.pre = Pre()
        self.digest_queue = DigestQueue(frozenset(info.digests))

    @classmethod
    def from_program(cls, info: ProgramInfo, *, port_up: PortUp = lambda port: True,
                     clock_us: Clock | None = None,
                     rng: random.Random | None = None) -> DeviceState:
        return cls(info, port_up, clock_us if clock_us is not None else monotonic_clock(),
                   rng)

    @staticmethod
    def _put(target: dict, obj_id: int, name: str, obj: object) -> None:
        target[obj_id] = obj
        target[name] = obj

    def _lookup_profile(self, name: str, table_id: int) -> ActionProfile:
        for key, profile in self.action_profiles.items():
            if isinstance(key, str) and (key == name or key.endswith("." + name)):
                return profile
        for profile in self.action_profiles.values():
            if table_id in profile.info.table_ids:
                return profile
        raise InvalidEntry(f"table id {table_id}: no action profile named {name!r}")

    # --- name resolution (p4c STF suffix rules)
    def resolve_table(self, name: str) -> Table:
        return _resolve(self.tables, name, "table")

    def resolve_action(self, name: str, table: Table | None = None,
                       action_ids: Iterable[int] | None = None) -> ActionInfo:
        """An action by full name or suffix; with `table` (or `action_ids`), only among
        that table's (those) actions."""
        if table is not None:
            action_ids = [ref.id for ref in table.info.actions]
        pool = None
        if action_ids is not None:
            pool = [self.info.actions[i] for i in action_ids if i in self.info.actions]
        return _resolve(self.actions, name, "action", pool)

    def resolve_counter(self, name: str) -> CounterArray | DirectCounter:
        return _resolve(self.counters, name, "counter")

    def resolve_meter(self, name: str) -> MeterArray | DirectMeter:
        return _resolve(self.meters, name, "meter")

    def resolve_register(self, name: str) -> RegisterArray:
        return _resolve(self.registers, name, "register")

    def resolve_action_profile(self, name: str) -> ActionProfile:
        return _resolve(self.action_profiles, name, "action profile")

    def objects(self, kind: str) -> list:
        """Each object of one collection (e.g. "tables") once; the dicts hold each twice."""
        return [obj for key, obj in getattr(self, kind).items() if isinstance(key, int)]
