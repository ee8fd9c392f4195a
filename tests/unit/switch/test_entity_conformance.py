"""Entity rules checked on the pure writer/reader: idle time, scopes, group edits."""

from __future__ import annotations

import dataclasses

import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2 as pb

from p4emu.runtime.device import DeviceState
from p4emu.runtime.match import Ternary
from p4emu.runtime.model import ActionRef, ConstEntry, MeterInfo, MeterUnit
from p4emu.switch.entity_reads import EntityReader
from p4emu.switch.entity_writes import EntityWriter
from p4emu.switch.notifications import idle_messages
from p4emu.switch.p4rt_errors import P4RTError
from p4emu.switch.program import LoadedProgram
from p4emu.switch.reconcile_and_commit import replay_state

from .fake_program import (
    ACL,
    CONSTS,
    DROP,
    ECMP,
    FORWARD,
    LPM,
    NO_ACTION,
    SELECTOR,
    SET_NHOP,
    make_info,
)

INSERT, MODIFY, DELETE = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE


class Clock:
    def __init__(self) -> None:
        self.now_us = 1_000

    def __call__(self) -> int:
        return self.now_us


def code_of(fn) -> int:
    with pytest.raises(P4RTError) as err:
        fn()
    return err.value.code


def upd(op, **entity) -> pb.Update:
    return pb.Update(type=op, entity=pb.Entity(**entity))


def lpm_entry(action=FORWARD, idle_ns=0) -> pb.TableEntry:
    te = pb.TableEntry(table_id=LPM, idle_timeout_ns=idle_ns)
    fm = te.match.add(field_id=1)
    fm.lpm.value = b"\x0a\x00\x00\x00"
    fm.lpm.prefix_len = 8
    te.action.action.action_id = action
    if action == FORWARD:
        te.action.action.params.add(param_id=1, value=b"\x01")
        te.action.action.params.add(param_id=2, value=b"\x01")
    return te


def state_with(**lpm_changes) -> tuple[DeviceState, Clock]:
    info = make_info()
    tables = dict(info.tables)
    tables[LPM] = dataclasses.replace(tables[LPM], **lpm_changes)
    clock = Clock()
    return DeviceState.from_program(dataclasses.replace(info, tables=tables),
                                    clock_us=clock), clock


def test_time_since_last_hit_is_read_only_and_needs_idle_timeout():
    state, clock = state_with(idle_timeout=True)
    writer, reader = EntityWriter(state), EntityReader(state)
    bad = lpm_entry(idle_ns=10**9)
    bad.time_since_last_hit.elapsed_ns = 1
    assert code_of(lambda: writer.apply(upd(INSERT, table_entry=bad))) == \
        code_pb2.INVALID_ARGUMENT
    writer.apply(upd(INSERT, table_entry=lpm_entry(idle_ns=10**9)))
    clock.now_us += 2_500
    query = pb.TableEntry(table_id=LPM)
    query.time_since_last_hit.SetInParent()
    got = list(reader.read(pb.Entity(table_entry=query)))
    assert got[0].table_entry.time_since_last_hit.elapsed_ns == 2_500_000
    plain = list(reader.read(pb.Entity(table_entry=pb.TableEntry(table_id=LPM))))
    assert not plain[0].table_entry.HasField("time_since_last_hit")
    acl_query = pb.TableEntry(table_id=ACL)
    acl_query.time_since_last_hit.SetInParent()
    assert code_of(lambda: list(reader.read(pb.Entity(table_entry=acl_query)))) == \
        code_pb2.INVALID_ARGUMENT


def test_defaultonly_and_tableonly_scopes():
    state, _ = state_with(actions=(ActionRef(FORWARD, "TABLE_ONLY"),
                                   ActionRef(DROP, "DEFAULT_ONLY"), ActionRef(NO_ACTION)))
    writer = EntityWriter(state)
    # spec 9.1.2 / PI: an action of the table used out of its scope is PERMISSION_DENIED
    assert code_of(lambda: writer.apply(upd(INSERT, table_entry=lpm_entry(DROP)))) == \
        code_pb2.PERMISSION_DENIED
    writer.apply(upd(INSERT, table_entry=lpm_entry(FORWARD)))
    default = pb.TableEntry(table_id=LPM, is_default_action=True)
    default.action.action.action_id = FORWARD
    default.action.action.params.add(param_id=1, value=b"\x01")
    default.action.action.params.add(param_id=2, value=b"\x01")
    assert code_of(lambda: writer.apply(upd(MODIFY, table_entry=default))) == \
        code_pb2.PERMISSION_DENIED
    default.action.action.ClearField("params")
    default.action.action.action_id = DROP
    writer.apply(upd(MODIFY, table_entry=default))


def test_group_max_size_is_fixed_after_creation():
    state, _ = state_with()
    writer = EntityWriter(state)
    member = pb.ActionProfileMember(action_profile_id=SELECTOR, member_id=1)
    member.action.action_id = SET_NHOP
    member.action.params.add(param_id=1, value=b"\x01")
    writer.apply(upd(INSERT, action_profile_member=member))
    group = pb.ActionProfileGroup(action_profile_id=SELECTOR, group_id=5, max_size=4)
    group.members.add(member_id=1, weight=1)
    writer.apply(upd(INSERT, action_profile_group=group))
    group.max_size = 6
    assert code_of(lambda: writer.apply(upd(MODIFY, action_profile_group=group))) == \
        code_pb2.INVALID_ARGUMENT
    group.max_size = 0  # "unchanged"
    writer.apply(upd(MODIFY, action_profile_group=group))
    got = list(EntityReader(state).read(pb.Entity(
        action_profile_group=pb.ActionProfileGroup(action_profile_id=SELECTOR))))
    assert got[0].action_profile_group.max_size == 4


def test_direct_meter_reads_and_meter_config_on_request():
    info = make_info()
    lpm_meter = MeterInfo(0x15000001, "MyIngress.lpm_meter", 1024, MeterUnit.BYTES,
                          direct_table_id=LPM)
    tables = dict(info.tables)
    tables[LPM] = dataclasses.replace(tables[LPM], direct_meter=lpm_meter.name)
    info = dataclasses.replace(info, tables=tables,
                               meters={**info.meters, lpm_meter.id: lpm_meter})
    state = DeviceState.from_program(info, clock_us=Clock())
    writer, reader = EntityWriter(state), EntityReader(state)
    entry = lpm_entry()
    entry.meter_config.CopyFrom(pb.MeterConfig(cir=10, cburst=20, pir=30, pburst=40))
    writer.apply(upd(INSERT, table_entry=entry))
    plain = list(reader.read(pb.Entity(table_entry=pb.TableEntry(table_id=LPM))))
    assert not plain[0].table_entry.HasField("meter_config")
    query = pb.TableEntry(table_id=LPM)
    query.meter_config.SetInParent()
    asked = list(reader.read(pb.Entity(table_entry=query)))
    assert asked[0].table_entry.meter_config.pir == 30
    absent = lpm_entry()
    absent.match[0].lpm.value = b"\x0b\x00\x00\x00"
    absent.ClearField("action")
    dme = pb.DirectMeterEntry(table_entry=absent)
    assert list(reader.read(pb.Entity(direct_meter_entry=dme))) == []
    no_meter = pb.DirectMeterEntry(table_entry=pb.TableEntry(table_id=ACL))
    assert code_of(lambda: list(reader.read(pb.Entity(direct_meter_entry=no_meter)))) == \
        code_pb2.INVALID_ARGUMENT


def test_modify_without_action_touches_only_direct_resources():
    state, _ = state_with()
    writer, reader = EntityWriter(state), EntityReader(state)
    entry = lpm_entry()
    entry.controller_metadata = 7
    writer.apply(upd(INSERT, table_entry=entry))
    bump = lpm_entry()
    bump.ClearField("action")
    bump.counter_data.packet_count = 42
    writer.apply(upd(MODIFY, table_entry=bump))
    query = pb.TableEntry(table_id=LPM)
    query.counter_data.SetInParent()
    got = list(reader.read(pb.Entity(table_entry=query)))[0].table_entry
    assert got.counter_data.packet_count == 42
    assert got.action.action.action_id == FORWARD and got.controller_metadata == 7
    missing = lpm_entry()
    missing.match[0].lpm.value = b"\x0b\x00\x00\x00"
    missing.ClearField("action")
    assert code_of(lambda: writer.apply(upd(MODIFY, table_entry=missing))) == \
        code_pb2.NOT_FOUND
    flagged = lpm_entry()
    flagged.is_const = True
    assert code_of(lambda: writer.apply(upd(MODIFY, table_entry=flagged))) == \
        code_pb2.INVALID_ARGUMENT


def test_const_tables_take_direct_resource_modifies_only():
    state, _ = state_with()
    writer = EntityWriter(state)
    const = pb.TableEntry(table_id=CONSTS)
    const.match.add(field_id=1).exact.value = b"\x07"
    const.action.action.action_id = DROP
    assert code_of(lambda: writer.apply(upd(MODIFY, table_entry=const))) == \
        code_pb2.PERMISSION_DENIED
    const.ClearField("action")
    writer.apply(upd(MODIFY, table_entry=const))  # nothing to change: a no-op
    assert code_of(lambda: writer.apply(upd(DELETE, table_entry=const))) == \
        code_pb2.PERMISSION_DENIED


def test_indirect_entry_with_unknown_member_or_group_is_not_found():
    state, _ = state_with()
    writer = EntityWriter(state)
    te = pb.TableEntry(table_id=ECMP)
    te.match.add(field_id=1).exact.value = b"\x01"
    te.action.action_profile_member_id = 5
    assert code_of(lambda: writer.apply(upd(INSERT, table_entry=te))) == code_pb2.NOT_FOUND
    te.action.action_profile_group_id = 5
    assert code_of(lambda: writer.apply(upd(INSERT, table_entry=te))) == code_pb2.NOT_FOUND


def test_keyless_table_takes_no_match_entries():
    state, _ = state_with(keys=())
    writer = EntityWriter(state)
    te = lpm_entry()
    del te.match[:]
    assert code_of(lambda: writer.apply(upd(INSERT, table_entry=te))) == \
        code_pb2.INVALID_ARGUMENT


def test_reconcile_refuses_state_the_new_program_cannot_hold():
    old_state, _ = state_with()
    EntityWriter(old_state).apply(upd(INSERT, table_entry=lpm_entry()))
    new_state, _ = state_with(direct_counter=None)
    old = LoadedProgram(None, b"", 0, old_state.info, old_state, None)  # type: ignore[arg-type]
    new = LoadedProgram(None, b"", 0, new_state.info, new_state, None)  # type: ignore[arg-type]
    assert code_of(lambda: replay_state(old, new)) == code_pb2.INVALID_ARGUMENT
    fits, _ = state_with()
    assert replay_state(old, LoadedProgram(None, b"", 0, fits.info, fits, None)) == 1  # type: ignore[arg-type]


def test_idle_timeout_notifications_restart_the_entry_timer():
    state, clock = state_with(idle_timeout=True)
    program = LoadedProgram(None, b"", 0, state.info, state, None)  # type: ignore[arg-type]
    writer = EntityWriter(state)
    writer.apply(upd(INSERT, table_entry=lpm_entry(idle_ns=5_000_000)))  # 5 ms TTL
    clock.now_us += 4_000
    assert idle_messages(program, clock()) == []
    clock.now_us += 1_000
    msgs = idle_messages(program, clock())
    assert len(msgs) == 1
    note = msgs[0].idle_timeout_notification
    assert note.timestamp == clock() * 1000
    assert [(te.table_id, te.idle_timeout_ns) for te in note.table_entry] == \
        [(LPM, 5_000_000)]
    assert note.table_entry[0].match == lpm_entry().match
    assert idle_messages(program, clock()) == []  # reported once per TTL
    clock.now_us += 5_000
    assert len(idle_messages(program, clock())) == 1


def test_const_ternary_entries_read_with_pi_priorities_and_are_found_by_them():
    info = make_info()
    tables = dict(info.tables)
    tables[ACL] = dataclasses.replace(
        tables[ACL], is_const=True,
        const_entries=(ConstEntry((Ternary(0x800, 0xFFFF), None), DROP, (), 1),))
    state = DeviceState.from_program(dataclasses.replace(info, tables=tables),
                                     clock_us=Clock())
    got = list(EntityReader(state).read(pb.Entity(table_entry=pb.TableEntry(table_id=ACL))))
    te = got[0].table_entry
    assert te.is_const and te.priority == 2**31 - 2
    query = pb.TableEntry(table_id=ACL, priority=te.priority)
    query.match.extend(te.match)
    direct = list(EntityReader(state).read(pb.Entity(table_entry=query)))
    assert len(direct) == 1
