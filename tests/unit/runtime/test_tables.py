import pytest
from runtime_info_builders import ACTIONS, selector_info, table_info

from p4emu.runtime.action_profiles import ActionProfile
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.errors import EntryExists, EntryNotFound, InvalidEntry, ReadOnly, TableFull
from p4emu.runtime.match import Exact, Lpm, Optional, Range, Ternary
from p4emu.runtime.meters import GREEN, RED, YELLOW, MeterConfig
from p4emu.runtime.model import ConstEntry, MatchKind, MeterInfo, MeterUnit
from p4emu.runtime.tables import Table, TableEntry


def fwd(port: int) -> ActionCall:
    return ActionCall(2, (port,))


def make(*keys, **kw) -> Table:
    return Table(table_info(*keys, **kw), ACTIONS)


def test_exact_hit_miss_and_default():
    t = make(("dst", MatchKind.EXACT, 16), ("proto", MatchKind.EXACT, 8))
    t.insert(TableEntry((Exact(5), Exact(6)), action=fwd(3)))
    r = t.lookup((5, 6), 100)
    assert (r.hit, r.action_id, r.args) == (True, 2, (3,))
    miss = t.lookup((5, 7), 100)
    assert (miss.hit, miss.action_id, miss.args) == (False, 1, ())
    t.set_default(ActionCall(3))
    assert t.lookup((5, 7), 1).action_id == 3
    t.reset_default()
    assert t.lookup((5, 7), 1).action_id == 1


def test_exact_errors():
    t = make(("dst", MatchKind.EXACT, 8), size=1)
    t.insert(TableEntry((Exact(1),), action=fwd(1)))
    with pytest.raises(EntryExists):
        t.insert(TableEntry((Exact(1),), action=fwd(2)))
    with pytest.raises(TableFull):
        t.insert(TableEntry((Exact(2),), action=fwd(2)))
    with pytest.raises(EntryNotFound):
        t.delete(TableEntry((Exact(9),)))
    with pytest.raises(InvalidEntry):
        t.modify(TableEntry((Exact(1),), action=ActionCall(2, (512,))))  # port > bit<9>
    t2 = make(("dst", MatchKind.EXACT, 8))
    for bad in (TableEntry((Exact(256),), action=fwd(1)),  # too wide
                TableEntry((None,), action=fwd(1)),  # exact needs a value
                TableEntry((Exact(1),), priority=5, action=fwd(1)),  # no priority here
                TableEntry((Exact(1),), action=ActionCall(99)),  # unknown action
                TableEntry((Ternary(1, 1),), action=fwd(1))):  # wrong kind
        with pytest.raises(InvalidEntry):
            t2.insert(bad)


def test_modify_and_delete_keep_counters_until_delete():
    t = make(("dst", MatchKind.EXACT, 8))
    t.insert(TableEntry((Exact(1),), action=fwd(1)))
    t.lookup((1,), 60)
    t.modify(TableEntry((Exact(1),), action=fwd(7)))
    r = t.lookup((1,), 40)
    assert r.args == (7,)
    assert (r.entry.counter.packets, r.entry.counter.bytes) == (2, 100)
    removed = t.delete(TableEntry((Exact(1),)))
    assert removed.action == fwd(7)
    assert not t.lookup((1,), 1).hit


def test_lpm_longest_prefix_wins_regardless_of_order():
    t = make(("ip", MatchKind.LPM, 32))
    t.insert(TableEntry((Lpm(0x0A000000, 8),), action=fwd(1)))
    t.insert(TableEntry((Lpm(0x0A010200, 24),), action=fwd(3)))
    t.insert(TableEntry((Lpm(0x0A010000, 16),), action=fwd(2)))
    t.insert(TableEntry((None,), action=fwd(9)))  # /0 route
    assert t.lookup((0x0A010203,), 1).args == (3,)
    assert t.lookup((0x0A01FF01,), 1).args == (2,)
    assert t.lookup((0x0AFF0000,), 1).args == (1,)
    assert t.lookup((0x0B000000,), 1).args == (9,)
    t.delete(TableEntry((Lpm(0x0A010200, 24),)))
    assert t.lookup((0x0A010203,), 1).args == (2,)
    with pytest.raises(InvalidEntry):  # bits past the prefix
        t.insert(TableEntry((Lpm(0x0A010203, 24),), action=fwd(1)))
    assert t.get((Lpm(0, 0),)).action == fwd(9)  # /0 is the don't-care form


def test_lpm_with_exact_field():
    t = make(("vrf", MatchKind.EXACT, 8), ("ip", MatchKind.LPM, 32))
    t.insert(TableEntry((Exact(1), Lpm(0x0A000000, 8)), action=fwd(1)))
    t.insert(TableEntry((Exact(2), Lpm(0x0A010000, 16)), action=fwd(2)))
    assert t.lookup((1, 0x0A010101), 1).args == (1,)
    assert t.lookup((2, 0x0A010101), 1).args == (2,)
    assert not t.lookup((2, 0x0A020101), 1).hit


def test_ternary_priority_and_ties():
    t = make(("f", MatchKind.TERNARY, 8))
    t.insert(TableEntry((Ternary(0x10, 0xF0),), priority=10, action=fwd(1)))
    t.insert(TableEntry((Ternary(0x12, 0xFF),), priority=5, action=fwd(2)))
    t.insert(TableEntry((Ternary(0x02, 0x0F),), priority=10, action=fwd(3)))
    # 0x12 matches all three: priority 10 wins, tie -> earliest inserted
    assert t.lookup((0x12,), 1).args == (1,)
    t.delete(TableEntry((Ternary(0x10, 0xF0),), priority=10))
    assert t.lookup((0x12,), 1).args == (3,)
    t.insert(TableEntry((Ternary(0x12, 0xFF),), priority=50, action=fwd(4)))
    assert t.lookup((0x12,), 1).args == (4,)
    # same match, different priority: a distinct entry
    assert t.get((Ternary(0x12, 0xFF),), 5).action == fwd(2)
    with pytest.raises(InvalidEntry):
        t.insert(TableEntry((Ternary(0x12, 0xF0),), priority=1, action=fwd(1)))
    with pytest.raises(InvalidEntry):  # ternary tables need a priority
        t.insert(TableEntry((Ternary(0x1, 0xF),), action=fwd(1)))


def test_range_and_optional():
    t = make(("port", MatchKind.RANGE, 16), ("proto", MatchKind.OPTIONAL, 8))
    t.insert(TableEntry((Range(1000, 2000), Optional(6)), priority=2, action=fwd(1)))
    t.insert(TableEntry((Range(1500, 1600), None), priority=1, action=fwd(2)))
    assert t.lookup((1500, 6), 1).args == (1,)
    assert t.lookup((1500, 17), 1).args == (2,)
    assert t.lookup((2000, 6), 1).args == (1,)
    assert not t.lookup((2001, 6), 1).hit
    with pytest.raises(InvalidEntry):
        t.insert(TableEntry((Range(5, 4), None), priority=1, action=fwd(1)))


def test_const_entries_first_listed_wins_and_read_only():
    ces = (ConstEntry((Ternary(0x01, 0x0F),), 2, (1,), 1),
           ConstEntry((Ternary(0x00, 0x00),), 2, (2,), 2),
           ConstEntry((Ternary(0x11, 0xFF),), 2, (3,), 3))
    t = make(("f", MatchKind.TERNARY, 8), const_entries=ces, is_const=True)
    assert t.lookup((0x11,), 1).args == (1,)
    assert t.lookup((0x22,), 1).args == (2,)
    assert len(t.entries()) == 3 and all(e.is_const for e in t.entries())
    with pytest.raises(ReadOnly):
        t.insert(TableEntry((Ternary(1, 1),), priority=1, action=fwd(1)))
    with pytest.raises(ReadOnly):
        t.delete(TableEntry((Ternary(0x01, 0x0F),), priority=1))


def test_const_entry_priority_annotation_smaller_wins():
    ces = (ConstEntry((Ternary(0x01, 0xFF),), 2, (1,), 20),
           ConstEntry((Ternary(0x01, 0x0F),), 2, (2,), 10))
    t = make(("f", MatchKind.TERNARY, 8), const_entries=ces, is_const=True)
    assert t.lookup((0x01,), 1).args == (2,)


def test_const_default_action_is_read_only():
    t = make(("f", MatchKind.EXACT, 8), const_default_action=True)
    with pytest.raises(ReadOnly):
        t.set_default(ActionCall(3))


def test_direct_meter_colors_on_hit_only():
    now = [0]
    meter = MeterInfo(300, "MyIngress.m", 0, MeterUnit.PACKETS, direct_table_id=100)
    t = Table(table_info(("f", MatchKind.EXACT, 8)), ACTIONS, direct_meter=meter,
              clock_us=lambda: now[0])
    t.insert(TableEntry((Exact(1),), action=fwd(1)))
    assert t.lookup((1,), 64).meter_color == GREEN  # unconfigured
    assert t.lookup((2,), 64).meter_color is None  # miss: the meter does not run
    entry = t.get((Exact(1),))
    t.set_meter_config(entry, MeterConfig(cir=1, cburst=1, pir=2, pburst=2))
    colors = [t.lookup((1,), 64).meter_color for _ in range(3)]
    assert colors == [GREEN, YELLOW, RED]


def test_const_entries_priority_views():
    exact = make(("f", MatchKind.EXACT, 8),
                 const_entries=(ConstEntry((Exact(1),), 2, (1,), 1),), is_const=True)
    [entry] = exact.entries()
    assert entry.priority == 0 and exact.p4runtime_priority(entry) == 0
    assert exact.get((Exact(1),)).action == fwd(1)
    tern = make(("f", MatchKind.TERNARY, 8),
                const_entries=(ConstEntry((Ternary(1, 0xFF),), 2, (1,), 1),
                               ConstEntry((Ternary(2, 0xFF),), 2, (1,), 2)), is_const=True)
    first, second = tern.entries()
    assert tern.p4runtime_priority(first) > tern.p4runtime_priority(second)


def test_initial_entries_lock_the_table_as_bmv2_does():
    # plain (non-const) `entries` land in the same BMv2 JSON list as const ones, and BMv2
    # makes any table loaded with entries immutable
    t = make(("f", MatchKind.EXACT, 8), const_entries=(ConstEntry((Exact(1),), 2, (1,), 1),))
    with pytest.raises(ReadOnly):
        t.insert(TableEntry((Exact(2),), action=fwd(2)))
    t.clear()
    assert [e.match for e in t.entries()] == [(Exact(1),)]
    assert t.lookup((1,), 1).hit and not t.lookup((2,), 1).hit


def test_selector_positions_may_be_given_as_none():
    profile = ActionProfile(selector_info(), ACTIONS, {1, 2, 3})
    profile.insert_member(1, fwd(4))
    info = table_info(("dst", MatchKind.EXACT, 8), ("src", MatchKind.SELECTOR, 16),
                      implementation="MyIngress.sel")
    t = Table(info, ACTIONS, profile)
    t.insert(TableEntry((Exact(1), None), member_id=1))
    assert t.get((Exact(1),)).member_id == 1
    with pytest.raises(InvalidEntry):
        t.insert(TableEntry((Exact(2), Exact(3)), member_id=1))
    assert t.lookup((1, 999), 1).args == (4,)


def test_specialised_lookups_match_the_general_one():
    exact = make(("a", MatchKind.EXACT, 8), ("b", MatchKind.EXACT, 8))
    lpm = make(("dst", MatchKind.LPM, 32))
    exact.insert(TableEntry((Exact(1), Exact(2)), action=fwd(3)))
    lpm.insert(TableEntry((Lpm(0x0A000000, 8),), action=fwd(1)))
    lpm.insert(TableEntry((Lpm(0x0A010000, 16),), action=fwd(2)))
    for table, keys in ((exact, [(1, 2), (2, 1)]),
                        (lpm, [(0x0A010203,), (0x0A020304,), (0x0B000000,)])):
        assert table.lookup is not table.lookup_general
        for key in keys:
            fast, general = table.lookup(key, 10), table.lookup_general(key, 10)
            assert (fast.hit, fast.action_id, fast.args) == (general.hit, general.action_id,
                                                             general.args)
    assert exact.get((Exact(1), Exact(2))).counter.packets == 2
    exact.set_default(fwd(9))  # a default set later is seen by the specialised lookup
    assert exact.lookup((5, 5), 10).args == (9,)
