import pytest
from runtime_info_builders import ACTIONS, selector_info, table_info

from p4emu.runtime.action_profiles import ActionProfile, GroupMember
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.errors import EntryExists, InUse, InvalidEntry, TableFull
from p4emu.runtime.hashes import crc16, pack_fields
from p4emu.runtime.match import Exact
from p4emu.runtime.model import MatchKind
from p4emu.runtime.tables import Table, TableEntry


def build(port_up=lambda port: True, max_group_size=8):
    profile = ActionProfile(selector_info(max_group_size), ACTIONS, {1, 2, 3}, port_up)
    info = table_info(("dst", MatchKind.EXACT, 8), ("src", MatchKind.SELECTOR, 16),
                      implementation="MyIngress.sel")
    return profile, Table(info, ACTIONS, profile)


def add_members(profile, n):
    for mid in range(1, n + 1):
        profile.insert_member(mid, ActionCall(2, (10 + mid,)))


def test_selector_picks_hash_mod_active_members_by_member_id():
    down = set()
    profile, table = build(lambda port: port not in down)
    add_members(profile, 3)
    # listed out of order on purpose: selection orders by member id
    profile.insert_group(7, [GroupMember(3, watch_port=3), GroupMember(1, watch_port=1),
                             GroupMember(2, watch_port=2)])
    table.insert(TableEntry((Exact(5),), group_id=7))
    for src in range(20):
        h = crc16(pack_fields([(src, 16)]))
        assert table.lookup((5, src), 64).args == (10 + 1 + h % 3,)
    down.add(2)
    for src in range(20):
        h = crc16(pack_fields([(src, 16)]))
        assert table.lookup((5, src), 64).args == ((11, 13)[h % 2],)
    down.update({1, 3})
    r = table.lookup((5, 1), 64)
    assert r.hit and r.action_id is None  # all down: nothing runs


def test_weights_expand_slots_and_limits():
    profile, _ = build(max_group_size=4)
    add_members(profile, 3)
    profile.insert_group(1, [GroupMember(1, weight=3), GroupMember(2)])
    assert [m.member_id for m in profile.active_members(1)] == [1, 1, 1, 2]
    with pytest.raises(TableFull):
        profile.insert_group(2, [GroupMember(1, weight=3), GroupMember(2, weight=2)])
    with pytest.raises(InvalidEntry):
        profile.insert_group(3, [GroupMember(9)])
    with pytest.raises(EntryExists):
        profile.insert_group(1, [])


def test_empty_group_and_references():
    profile, table = build()
    add_members(profile, 2)
    profile.insert_group(1, [])
    table.insert(TableEntry((Exact(1),), group_id=1))
    table.insert(TableEntry((Exact(2),), member_id=2))
    r = table.lookup((1, 0), 1)
    assert r.hit and r.action_id is None
    assert table.lookup((2, 0), 1).args == (12,)
    with pytest.raises(InUse):
        profile.delete_group(1)
    with pytest.raises(InUse):
        profile.delete_member(2)
    table.delete(TableEntry((Exact(2),)))
    profile.delete_member(2)
    with pytest.raises(InvalidEntry):  # unknown member
        table.insert(TableEntry((Exact(3),), member_id=2))
    with pytest.raises(InvalidEntry):  # direct action on an indirect table
        table.insert(TableEntry((Exact(3),), action=ActionCall(1)))
    with pytest.raises(InvalidEntry):
        table.set_default(ActionCall(3))


def test_cached_selection_follows_member_and_group_changes():
    profile, table = build()
    add_members(profile, 3)
    profile.insert_group(1, [GroupMember(1), GroupMember(2)])
    table.insert(TableEntry((Exact(1),), group_id=1))
    h = crc16(pack_fields([(9, 16)]))
    assert table.lookup((1, 9), 64).args == ((11, 12)[h % 2],)
    profile.modify_member(1, ActionCall(2, (21,)))
    profile.modify_member(2, ActionCall(2, (22,)))
    assert table.lookup((1, 9), 64).args == ((21, 22)[h % 2],)
    profile.modify_group(1, [GroupMember(3)])
    assert table.lookup((1, 9), 64).args == (13,)
    slots = profile.active_members(1)
    slots.clear()  # a copy: the cached slots are not affected
    assert table.lookup((1, 9), 64).args == (13,)
