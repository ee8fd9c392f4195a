"""Match-action tables: entries, defaults and the per-packet lookup.

Priorities (docs/v1model.md §4) are kept in BMv2's terms, where the smaller number wins:
a P4Runtime priority p becomes INT32_MAX - p (the larger P4Runtime priority wins), a const
entry keeps its p4c priority (1, 2, 3... in source order, or @priority). Ties go to the
earliest inserted entry.

Exact tables look up a dict, lpm tables a dict per prefix length (longest first), all
others scan a list kept sorted by priority.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterator, Mapping

from p4emu.runtime.action_profiles import ActionProfile
from p4emu.runtime.actions import ActionCall, validate_action_call
from p4emu.runtime.counters import CounterData
from p4emu.runtime.entries import LookupResult, TableEntry, canon_field
from p4emu.runtime.errors import EntryExists, EntryNotFound, InvalidEntry, ReadOnly, TableFull
from p4emu.runtime.hashes import HASH_ALGORITHMS
from p4emu.runtime.lookups import direct_result, make_lookup
from p4emu.runtime.match import Lpm, Range, Ternary, lpm_mask
from p4emu.runtime.meters import MeterCell, MeterConfig
from p4emu.runtime.model import ActionInfo, MatchKind, MeterInfo, MeterUnit, TableInfo

__all__ = ["INT32_MAX", "LookupResult", "Table", "TableEntry"]

INT32_MAX = 2**31 - 1


class Table:
    """Run-time state of one table."""

    def __init__(self, info: TableInfo, actions: Mapping[int, ActionInfo],
                 profile: ActionProfile | None = None, direct_meter: MeterInfo | None = None,
                 clock_us: Callable[[], int] = lambda: 0) -> None:
        self.info = info
        self.name = info.name
        self.actions = actions
        self.profile = profile
        self.clock_us = clock_us
        self.direct_meter = direct_meter
        self._idle_timeout = info.idle_timeout
        self._meter_bytes = direct_meter is not None and direct_meter.unit == MeterUnit.BYTES
        keys = info.keys
        self.match_keys = tuple(k for k in keys if k.match_kind != MatchKind.SELECTOR)
        self._match_idx = tuple(i for i, k in enumerate(keys)
                                if k.match_kind != MatchKind.SELECTOR)
        self._sel_idx = tuple(i for i, k in enumerate(keys) if k.match_kind == MatchKind.SELECTOR)
        self._sel_widths = tuple(keys[i].bitwidth for i in self._sel_idx)
        self._has_selector_keys = bool(self._sel_idx)
        self._selector_hash = None
        if profile is not None and profile.info.with_selector:
            self._selector_hash = HASH_ALGORITHMS.get(profile.info.selector_algorithm or
                                                      "crc16", HASH_ALGORITHMS["crc16"])
        kinds = [k.match_kind for k in self.match_keys]
        self.needs_priority = any(k in (MatchKind.TERNARY, MatchKind.RANGE, MatchKind.OPTIONAL)
                                  for k in kinds)
        if all(k == MatchKind.EXACT for k in kinds):
            self._mode = "exact"
        elif kinds.count(MatchKind.LPM) == 1 and not self.needs_priority:
            self._mode = "lpm"
            self._lpm_pos = kinds.index(MatchKind.LPM)
            self._lpm_width = self.match_keys[self._lpm_pos].bitwidth
        else:
            self._mode = "scan"
        self._allowed_entry = frozenset(a.id for a in info.actions if a.scope != "DEFAULT_ONLY")
        self._allowed_default = frozenset(a.id for a in info.actions if a.scope != "TABLE_ONLY")
        self._seq = itertools.count()
        self._entries: dict[tuple, TableEntry] = {}  # (match, priority) -> entry
        self._exact: dict[tuple, TableEntry] = {}
        self._lpm: dict[int, dict] = {}  # prefix len -> {masked key tuple: entry}
        self._lpm_levels: list[tuple[int, dict]] = []  # (lpm mask, bucket), longest first
        self._scan: list[tuple[tuple[int, int], tuple, tuple, TableEntry]] = []
        self._program_default = (ActionCall(info.default_action_id, info.default_action_args)
                                 if info.default_action_id is not None else None)
        self.default: ActionCall | None = self._program_default
        self._miss = self._make_miss()
        for ce in info.const_entries:
            # exact/lpm tables take no priority: keep 0 so reads look like any other entry
            priority = ce.priority if self.needs_priority else 0
            entry = TableEntry(match=tuple(ce.match), priority=priority,
                               action=ActionCall(ce.action_id, tuple(ce.args)), is_const=True)
            try:
                self._add(entry)
            except EntryExists:
                pass  # a duplicate const key can never be reached: the first one wins
        self.lookup = make_lookup(self)  # per-packet lookup specialised to this table
        # called after every control-plane change (entries, default action, meter
        # configs): p4emu.native mirrors the table into C and reloads its copy then
        self.on_change: list[Callable[[], None]] = []

    def _changed(self) -> None:
        for hook in self.on_change:
            hook()

    # --- helpers
    def _canon_match(self, match: tuple) -> tuple:
        n_all, n_match = len(self.info.keys), len(self.match_keys)
        if len(match) == n_all and n_all != n_match:
            if any(match[i] is not None for i in self._sel_idx):
                raise InvalidEntry(f"table {self.name}: selector fields take no match value")
            match = tuple(match[i] for i in self._match_idx)
        if len(match) != n_match:
            raise InvalidEntry(f"table {self.name}: {n_match} match fields expected, "
                               f"got {len(match)}")
        return tuple(canon_field(fm, k.match_kind, k.bitwidth, f"table {self.name} key {k.name}")
                     for fm, k in zip(match, self.match_keys, strict=True))

    def _identity(self, match: tuple, priority: int) -> tuple:
        return (self._canon_match(match), priority)

    def _bmv2_priority(self, entry: TableEntry) -> int:
        return entry.priority if entry.is_const else INT32_MAX - entry.priority

    def p4runtime_priority(self, entry: TableEntry) -> int:
        """The priority a P4Runtime read reports: const entries keep p4c's BMv2 priority
        (smaller wins), which PI shows as INT32_MAX - p."""
        if entry.is_const and self.needs_priority:
            return INT32_MAX - entry.priority
        return entry.priority

    def _make_miss(self) -> LookupResult:
        d = self.default
        return LookupResult(False, d.action_id if d else None, d.args if d else (), None)

    def _validate_target(self, entry: TableEntry) -> None:
        where = f"table {self.name}"
        if self.profile is None:
            if entry.action is None or entry.member_id is not None or entry.group_id is not None:
                raise InvalidEntry(f"{where}: a direct table entry needs an action")
            validate_action_call(entry.action, self.actions, self._allowed_entry, where)
        else:
            targets = [x is not None for x in (entry.action, entry.member_id, entry.group_id)]
            if targets != [False, True, False] and targets != [False, False, True]:
                raise InvalidEntry(f"{where}: an indirect table entry needs a member or group")

    def _ref(self, entry: TableEntry) -> None:
        if self.profile is not None:
            if entry.member_id is not None:
                self.profile.ref("member", entry.member_id)
            else:
                self.profile.ref("group", entry.group_id)  # type: ignore[arg-type]

    def _unref(self, entry: TableEntry) -> None:
        if self.profile is not None:
            if entry.member_id is not None:
                self.profile.unref("member", entry.member_id)
            elif entry.group_id is not None:
                self.profile.unref("group", entry.group_id)

    def _add(self, entry: TableEntry) -> None:
        match = self._canon_match(entry.match)
        ident = (match, entry.priority)
        if ident in self._entries:
            raise EntryExists(f"table {self.name}: entry exists")
        entry.match = match
        entry.seq = next(self._seq)
        if self.direct_meter is not None:
            entry.meter = MeterCell(entry.meter_config, self.clock_us())
        entry._result = None
        self._entries[ident] = entry
        if self._mode == "exact":
            self._exact[tuple(fm.value for fm in match)] = entry  # type: ignore[union-attr]
        elif self._mode == "lpm":
            fm = match[self._lpm_pos]
            plen = fm.prefix_len if isinstance(fm, Lpm) else 0
            bucket = self._lpm.get(plen)
            if bucket is None:
                bucket = self._lpm[plen] = {}
                self._lpm_levels = [(lpm_mask(p, self._lpm_width), self._lpm[p])
                                    for p in sorted(self._lpm, reverse=True)]
            bucket[self._lpm_key(match)] = entry
        else:
            masks, ranges = [], []
            for i, (fm, k) in enumerate(zip(match, self.match_keys, strict=True)):
                if isinstance(fm, Range):
                    ranges.append((i, fm.low, fm.high))
                elif fm is not None:
                    full = (1 << k.bitwidth) - 1
                    if isinstance(fm, Ternary):
                        masks.append((i, fm.mask, fm.value))
                    elif isinstance(fm, Lpm):
                        masks.append((i, lpm_mask(fm.prefix_len, k.bitwidth), fm.value))
                    else:
                        masks.append((i, full, fm.value))
            item = ((self._bmv2_priority(entry), entry.seq), tuple(masks), tuple(ranges), entry)
            bisect.insort(self._scan, item, key=lambda it: it[0])

    def _lpm_key(self, match: tuple) -> tuple | int:
        if len(match) == 1:  # the common single-field case is keyed by the int itself
            return 0 if match[0] is None else match[0].value
        return tuple(0 if fm is None else fm.value for fm in match)

    def _remove(self, ident: tuple) -> TableEntry:
        entry = self._entries.pop(ident)
        match = ident[0]
        if self._mode == "exact":
            del self._exact[tuple(fm.value for fm in match)]
        elif self._mode == "lpm":
            fm = match[self._lpm_pos]
            plen = fm.prefix_len if isinstance(fm, Lpm) else 0
            bucket = self._lpm[plen]
            del bucket[self._lpm_key(match)]
            if not bucket:
                del self._lpm[plen]
                self._lpm_levels = [(lpm_mask(p, self._lpm_width), self._lpm[p])
                                    for p in sorted(self._lpm, reverse=True)]
        else:
            self._scan = [it for it in self._scan if it[3] is not entry]
        return entry

    def _check_priority(self, entry: TableEntry) -> None:
        if self.needs_priority and entry.priority <= 0:
            raise InvalidEntry(f"table {self.name}: entries need a priority > 0")
        if not self.needs_priority and entry.priority != 0:
            raise InvalidEntry(f"table {self.name}: entries take no priority")

    def _check_mutable(self) -> None:
        # p4c's BMv2 JSON has one "entries" list for `const entries` and plain `entries`
        # alike, and BMv2 makes every table loaded with entries immutable (P4Objects.cpp,
        # set_immutable_entries): initial entries of either kind lock the table
        if self.info.is_const or self.info.const_entries:
            raise ReadOnly(f"table {self.name} has "
                           f"{'const' if self.info.is_const else 'initial'} entries")

    # --- control plane
    def insert(self, entry: TableEntry) -> None:
        self._check_mutable()
        self._check_priority(entry)
        self._validate_target(entry)
        ident = self._identity(entry.match, entry.priority)
        if ident in self._entries:
            raise EntryExists(f"table {self.name}: entry exists")
        if len(self._entries) >= self.info.size:
            raise TableFull(f"table {self.name} is full ({self.info.size} entries)")
        self._ref(entry)
        entry.is_const = False
        entry.counter = CounterData(entry.counter.packets, entry.counter.bytes)
        self._add(entry)
        self._changed()

    def modify(self, entry: TableEntry) -> None:
        """Replace the target, metadata, meter config and timeout; counter data is kept."""
        self._check_mutable()
        old = self.get(entry.match, entry.priority)
        self._validate_target(entry)
        self._ref(entry)
        self._unref(old)
        old.action, old.member_id, old.group_id = entry.action, entry.member_id, entry.group_id
        old.controller_metadata, old.metadata = entry.controller_metadata, entry.metadata
        old.idle_timeout_ns = entry.idle_timeout_ns
        if old.meter is not None and entry.meter_config != old.meter_config:
            old.meter.configure(entry.meter_config, self.clock_us())
        old.meter_config = entry.meter_config
        old._result = None
        self._changed()

    def delete(self, entry: TableEntry) -> TableEntry:
        """Delete the entry with `entry`'s match and priority; returns the removed entry."""
        self._check_mutable()
        ident = self._identity(entry.match, entry.priority)
        if ident not in self._entries:
            raise EntryNotFound(f"table {self.name}: no such entry")
        removed = self._remove(ident)
        self._unref(removed)
        self._changed()
        return removed

    def clear(self) -> None:
        """Delete every entry that is not const."""
        for ident, entry in list(self._entries.items()):
            if not entry.is_const:
                self._unref(self._remove(ident))
        self._changed()

    def get(self, match: tuple, priority: int = 0) -> TableEntry:
        entry = self._entries.get(self._identity(match, priority))
        if entry is None:
            raise EntryNotFound(f"table {self.name}: no such entry")
        return entry

    def entries(self) -> list[TableEntry]:
        """All entries (const ones included) in insertion order."""
        return list(self._entries.values())

    def __iter__(self) -> Iterator[TableEntry]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    def set_meter_config(self, entry: TableEntry, config: MeterConfig | None) -> None:
        """Configure the direct meter cell of `entry` (an entry of this table)."""
        if entry.meter is None:
            raise InvalidEntry(f"table {self.name} has no direct meter")
        entry.meter_config = config
        entry.meter.configure(config, self.clock_us())
        self._changed()

    def set_default(self, call: ActionCall) -> None:
        if self.info.const_default_action:
            raise ReadOnly(f"table {self.name}: the default action is const")
        if self.profile is not None:
            raise InvalidEntry(f"table {self.name}: indirect tables keep the program default")
        validate_action_call(call, self.actions, self._allowed_default,
                             f"table {self.name} default")
        self.default = call
        self._miss = self._make_miss()
        self._changed()

    def reset_default(self) -> None:
        self.default = self._program_default
        self._miss = self._make_miss()
        self._changed()

    # --- data plane
    def _find(self, keys: tuple[int, ...]) -> TableEntry | None:
        """The matching entry of a table `lookups.make_find` has no shortcut for: an lpm
        table of several fields, or ternary/range/optional matching."""
        if self._mode == "lpm":
            pos = self._lpm_pos
            work = list(keys)
            value = keys[pos]
            for mask, bucket in self._lpm_levels:
                work[pos] = value & mask
                entry = bucket.get(tuple(work))
                if entry is not None:
                    return entry
            return None
        for _, masks, ranges, entry in self._scan:
            for i, mask, value in masks:
                if keys[i] & mask != value:
                    break
            else:
                for i, low, high in ranges:
                    if not low <= keys[i] <= high:
                        break
                else:
                    return entry
        return None

    def lookup_general(self, key_values: tuple[int, ...], packet_length: int) -> LookupResult:
        """Match one packet's key (one int per key field, selector fields included).
        `self.lookup` is this, or a faster equivalent for the table's shape (`lookups`)."""
        keys = self._match_keys_of(key_values) if self._has_selector_keys else key_values
        entry = self._find_entry(keys)
        if entry is None:
            return self._miss
        counter = entry.counter
        counter.packets += 1
        counter.bytes += packet_length
        if self._idle_timeout:
            entry.last_hit_us = self.clock_us()
        color = None
        if entry.meter is not None:
            color = entry.meter.execute(packet_length if self._meter_bytes else 1,
                                        self.clock_us())
        if entry.action is not None:
            if color is None:
                result = entry._result
                return direct_result(entry) if result is None else result
            return LookupResult(True, entry.action.action_id, entry.action.args, entry, color)
        profile = self.profile
        assert profile is not None
        if entry.member_id is not None:
            member = profile.members.get(entry.member_id)
        else:
            assert self._selector_hash is not None
            member = profile.select(entry.group_id,  # type: ignore[arg-type]
                                    self._selector_hash(self._pack_selector(key_values)))
        if member is None:
            return LookupResult(True, None, (), entry, color)
        return LookupResult(True, member.action.action_id, member.action.args, entry, color)
