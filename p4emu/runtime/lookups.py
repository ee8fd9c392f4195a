"""Per-packet lookup functions of a `Table`, chosen once for the table's shape.

A table's match kinds, action profile, direct meter, idle timeout and selector fields are
fixed when it is created, so `make_lookup` builds the lookup as a closure specialised to
them: an exact table becomes a dict get, a one-field lpm table a walk over its prefix
levels, and a direct table without meter or idle timeout skips every per-entry option.
The results are those of `Table.lookup_general`, which handles every shape.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from p4emu.runtime.entries import LookupResult, TableEntry
from p4emu.runtime.hashes import make_packer

Table = Any  # p4emu.runtime.tables.Table (which imports this module)

Find = Callable[[tuple], "TableEntry | None"]
Lookup = Callable[[tuple, int], LookupResult]


def make_find(table: Table) -> Find:
    """Entry matching a key tuple (selector fields left out), or None."""
    if table._mode == "exact":
        return table._exact.get  # the dict is only ever updated in place
    if table._mode == "lpm" and len(table.match_keys) == 1:
        def find_lpm(keys: tuple) -> TableEntry | None:
            value = keys[0]
            for mask, bucket in table._lpm_levels:
                entry = bucket.get(value & mask)
                if entry is not None:
                    return entry
            return None
        return find_lpm
    return table._find


def direct_result(entry: TableEntry) -> LookupResult:
    """The (cached) result of an entry with its own action."""
    action = entry.action
    assert action is not None
    result = entry._result = LookupResult(True, action.action_id, action.args, entry)
    return result


def make_lookup(table: Table) -> Lookup:
    """The fastest correct lookup for `table` (see the module docstring)."""
    find = make_find(table)
    if table._has_selector_keys:
        get = itemgetter(*table._match_idx)
        if len(table._match_idx) == 1:
            def match_keys(key_values: tuple) -> tuple:
                return (get(key_values),)
        else:
            match_keys = get
        table._match_keys_of = match_keys
    if table._sel_idx:
        sel = itemgetter(*table._sel_idx)
        pack = make_packer(table._sel_widths)
        if len(table._sel_idx) == 1:
            table._pack_selector = lambda key_values: pack((sel(key_values),))
        else:
            table._pack_selector = lambda key_values: pack(sel(key_values))
    table._find_entry = find
    if table.direct_meter is not None or table._idle_timeout:
        return table.lookup_general
    if table.profile is not None:
        return _indirect_lookup(table)
    if table._has_selector_keys:
        return table.lookup_general

    def lookup(key_values: tuple, packet_length: int) -> LookupResult:
        entry = find(key_values)
        if entry is None:
            return table._miss
        counter = entry.counter
        counter.packets += 1
        counter.bytes += packet_length
        result = entry._result
        if result is None:
            return direct_result(entry)
        return result
    return lookup


def _indirect_lookup(table: Table) -> Lookup:
    """Tables with an action profile or selector, without direct meter or idle timeout."""
    find = table._find_entry
    profile = table.profile
    members = profile.members  # only ever updated in place
    select = profile.select
    selector_hash = table._selector_hash
    match_keys = table._match_keys_of if table._has_selector_keys else None
    pack_selector = getattr(table, "_pack_selector", None)

    def lookup(key_values: tuple, packet_length: int) -> LookupResult:
        entry = find(key_values if match_keys is None else match_keys(key_values))
        if entry is None:
            return table._miss
        counter = entry.counter
        counter.packets += 1
        counter.bytes += packet_length
        if entry.action is not None:  # (an initial entry of a table with a profile)
            result = entry._result
            return direct_result(entry) if result is None else result
        if entry.member_id is not None:
            member = members.get(entry.member_id)
        else:
            assert selector_hash is not None and pack_selector is not None
            member = select(entry.group_id, selector_hash(pack_selector(key_values)))
        if member is None:
            return LookupResult(True, None, (), entry)
        action = member.action
        return LookupResult(True, action.action_id, action.args, entry)
    return lookup
