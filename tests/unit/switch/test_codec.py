"""Bytestrings, match validation and entity writes/reads against a real DeviceState."""

from __future__ import annotations

import pytest
from google.rpc import code_pb2
from p4.v1 import p4runtime_pb2 as pb

from p4emu.runtime.device import DeviceState
from p4emu.runtime.match import Lpm, Range, Ternary
from p4emu.switch import bytestrings
from p4emu.switch.codec_tables import decode_match
from p4emu.switch.entity_reads import EntityReader
from p4emu.switch.entity_writes import EntityWriter
from p4emu.switch.p4rt_errors import P4RTError

from .fake_program import (
    ACL,
    CONSTS,
    DROP,
    ECMP,
    FORWARD,
    LEARN,
    LPM,
    NO_ACTION,
    PORT_COUNTER,
    PORT_METER,
    QDEPTH,
    SELECTOR,
    SET_NHOP,
    make_info,
)

INSERT, MODIFY, DELETE = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE


def code_of(fn) -> int:
    with pytest.raises(P4RTError) as err:
        fn()
    return err.value.code


# --- bytestrings
@pytest.mark.parametrize("data,width,value", [
    (b"\x05", 9, 5), (b"\x00\x05", 9, 5), (b"\x00", 32, 0), (b"\x01\xff", 9, 511),
    (b"\x0a\x00\x01\x01", 32, 0x0A000101),
    (b"\x00\x00\x01", 9, 1), (b"\x00\x00\x63", 12, 0x63)])  # spec: extra zeros are fine
def test_decode_accepts_canonical_and_padded(data, width, value):
    assert bytestrings.decode(data, width, "x") == value


@pytest.mark.parametrize("data,width", [(b"", 8), (b"\x02\x00", 9), (b"\x01\x00\x63", 16),
                                        (b"\x10", 4), (b"\x00\x40\x63", 12)])
def test_decode_rejects_empty_and_too_wide(data, width):
    assert code_of(lambda: bytestrings.decode(data, width, "x")) == code_pb2.INVALID_ARGUMENT


def test_encode_is_canonical():
    assert bytestrings.encode(0) == b"\x00"
    assert bytestrings.encode(0x1FF) == b"\x01\xff"


# --- match decoding
def lpm_field(value: bytes, plen: int) -> pb.FieldMatch:
    fm = pb.FieldMatch(field_id=1)
    fm.lpm.value = value
    fm.lpm.prefix_len = plen
    return fm


def ternary_field(fid: int, value: bytes, mask: bytes) -> pb.FieldMatch:
    fm = pb.FieldMatch(field_id=fid)
    fm.ternary.value = value
    fm.ternary.mask = mask
    return fm


def range_field(fid: int, low: bytes, high: bytes) -> pb.FieldMatch:
    fm = pb.FieldMatch(field_id=fid)
    fm.range.low = low
    fm.range.high = high
    return fm


INFO = make_info()


def test_lpm_decoded_and_trailing_bits_rejected():
    table = INFO.tables[LPM]
    assert decode_match(table, [lpm_field(b"\x0a\x00\x01\x00", 24)]) == (Lpm(0x0A000100, 24),)
    bad = [lpm_field(b"\x0a\x00\x01\x01", 24)]
    assert code_of(lambda: decode_match(table, bad)) == code_pb2.INVALID_ARGUMENT
    for plen in (0, 33):
        fields = [lpm_field(b"\x00", plen)]
        assert code_of(lambda f=fields: decode_match(table, f)) == code_pb2.INVALID_ARGUMENT


def test_ternary_and_range_rules():
    table = INFO.tables[ACL]
    assert decode_match(table, [ternary_field(1, b"\x08\x00", b"\xff\x00"),
                                range_field(2, b"\x10", b"\x20")]) == (
        Ternary(0x800, 0xFF00), Range(0x10, 0x20))
    assert decode_match(table, []) == (None, None)
    cases = [
        [ternary_field(1, b"\x08\x01", b"\xff\x00")],  # value outside mask
        [ternary_field(1, b"\x00", b"\x00")],  # zero mask must be omitted
        [range_field(2, b"\x20", b"\x10")],  # low > high
        [range_field(2, b"\x00", b"\xff\xff")],  # full range must be omitted
        [ternary_field(9, b"\x01", b"\x01")],  # unknown field id
        [ternary_field(1, b"\x01", b"\x01"), ternary_field(1, b"\x01", b"\x01")],  # twice
        [range_field(1, b"\x01", b"\x02")],  # wrong kind
    ]
    for fields in cases:
        assert code_of(lambda f=fields: decode_match(table, f)) == code_pb2.INVALID_ARGUMENT


def test_exact_field_is_mandatory():
    table = INFO.tables[CONSTS]
    assert code_of(lambda: decode_match(table, [])) == code_pb2.INVALID_ARGUMENT


# --- entity writes and reads
@pytest.fixture
def state():
    return DeviceState.from_program(make_info(), clock_us=lambda: 0)


def update(op, **entity) -> pb.Update:
    return pb.Update(type=op, entity=pb.Entity(**entity))


def lpm_entry(prefix=b"\x0a\x00\x01\x00", plen=24, port=b"\x01") -> pb.TableEntry:
    te = pb.TableEntry(table_id=LPM)
    te.match.append(lpm_field(prefix, plen))
    te.action.action.action_id = FORWARD
    te.action.action.params.add(param_id=1, value=b"\x00\x00\x00\x00\x01\x01")
    te.action.action.params.add(param_id=2, value=port)
    return te


def read_all(state, **entity):
    return list(EntityReader(state).read(pb.Entity(**entity)))


def test_table_insert_read_modify_delete(state):
    w = EntityWriter(state)
    w.apply(update(INSERT, table_entry=lpm_entry()))
    assert code_of(lambda: w.apply(update(INSERT, table_entry=lpm_entry()))) == \
        code_pb2.ALREADY_EXISTS
    w.apply(update(MODIFY, table_entry=lpm_entry(port=b"\x00\x02")))
    read = read_all(state, table_entry=pb.TableEntry())  # table_id 0: all tables
    lpm_entries = [e.table_entry for e in read if e.table_entry.table_id == LPM]
    assert len(lpm_entries) == 1
    got = lpm_entries[0]
    assert got.action.action.params[1].value == b"\x02"  # canonical on read
    assert not got.HasField("counter_data")  # only when the read asks for it
    ask = pb.TableEntry(table_id=LPM)
    ask.counter_data.SetInParent()
    asked = read_all(state, table_entry=ask)
    assert asked[0].table_entry.HasField("counter_data")  # the table has a direct counter
    const_entries = [e.table_entry for e in read if e.table_entry.table_id == CONSTS]
    assert len(const_entries) == 1 and const_entries[0].is_const
    w.apply(update(DELETE, table_entry=lpm_entry()))
    assert code_of(lambda: w.apply(update(DELETE, table_entry=lpm_entry()))) == \
        code_pb2.NOT_FOUND
    assert read_all(state, table_entry=pb.TableEntry(table_id=LPM)) == []


def test_bad_ids_and_widths_are_invalid_argument(state):
    w = EntityWriter(state)
    bad_table = pb.TableEntry(table_id=0x02FFFFFF)
    bad_action = lpm_entry()
    bad_action.action.action.action_id = DROP + 100
    wide_param = lpm_entry(port=b"\x02\x00")  # 512 does not fit bit<9>
    missing_param = lpm_entry()
    del missing_param.action.action.params[1]
    wrong_scope = lpm_entry()
    wrong_scope.action.action.action_id = SET_NHOP
    del wrong_scope.action.action.params[1:]
    for te in (bad_table, bad_action, wide_param, missing_param, wrong_scope):
        assert code_of(lambda t=te: w.apply(update(INSERT, table_entry=t))) == \
            code_pb2.INVALID_ARGUMENT


def test_priority_required_exactly_where_needed(state):
    w = EntityWriter(state)
    acl = pb.TableEntry(table_id=ACL)
    acl.match.append(ternary_field(1, b"\x08\x00", b"\xff\xff"))
    acl.action.action.action_id = DROP
    assert code_of(lambda: w.apply(update(INSERT, table_entry=acl))) == \
        code_pb2.INVALID_ARGUMENT
    acl.priority = 5
    w.apply(update(INSERT, table_entry=acl))
    lpm = lpm_entry()
    lpm.priority = 3
    assert code_of(lambda: w.apply(update(INSERT, table_entry=lpm))) == \
        code_pb2.INVALID_ARGUMENT


def test_default_entry_modify_only_and_const_tables_read_only(state):
    w = EntityWriter(state)
    default = pb.TableEntry(table_id=LPM, is_default_action=True)
    default.action.action.action_id = NO_ACTION
    assert code_of(lambda: w.apply(update(INSERT, table_entry=default))) == \
        code_pb2.INVALID_ARGUMENT
    w.apply(update(MODIFY, table_entry=default))
    got = read_all(state, table_entry=pb.TableEntry(table_id=LPM, is_default_action=True))
    assert got[0].table_entry.action.action.action_id == NO_ACTION
    w.apply(update(MODIFY, table_entry=pb.TableEntry(table_id=LPM, is_default_action=True)))
    got = read_all(state, table_entry=pb.TableEntry(table_id=LPM, is_default_action=True))
    assert got[0].table_entry.action.action.action_id == DROP  # back to the program default
    const_default = pb.TableEntry(table_id=CONSTS, is_default_action=True)
    const_default.action.action.action_id = DROP
    assert code_of(lambda: w.apply(update(MODIFY, table_entry=const_default))) == \
        code_pb2.PERMISSION_DENIED
    const_entry = pb.TableEntry(table_id=CONSTS)
    const_entry.match.add(field_id=1).exact.value = b"\x09"
    const_entry.action.action.action_id = DROP
    assert code_of(lambda: w.apply(update(INSERT, table_entry=const_entry))) == \
        code_pb2.PERMISSION_DENIED


def test_members_groups_watch_port_and_indirect_entries(state):
    w = EntityWriter(state)
    for mid, port in ((1, b"\x01"), (2, b"\x02")):
        member = pb.ActionProfileMember(action_profile_id=SELECTOR, member_id=mid)
        member.action.action_id = SET_NHOP
        member.action.params.add(param_id=1, value=port)
        w.apply(update(INSERT, action_profile_member=member))
    group = pb.ActionProfileGroup(action_profile_id=SELECTOR, group_id=10, max_size=4)
    group.members.add(member_id=1, weight=1, watch_port=b"\x01")
    group.members.add(member_id=2, weight=1, watch_port=b"\x00\x02")
    w.apply(update(INSERT, action_profile_group=group))
    entry = pb.TableEntry(table_id=ECMP)
    entry.match.add(field_id=1).exact.value = b"\x01"
    entry.action.action_profile_group_id = 10
    w.apply(update(INSERT, table_entry=entry))
    direct = pb.TableEntry(table_id=ECMP)
    direct.match.add(field_id=1).exact.value = b"\x02"
    direct.action.action.action_id = SET_NHOP
    assert code_of(lambda: w.apply(update(INSERT, table_entry=direct))) == \
        code_pb2.INVALID_ARGUMENT
    groups = read_all(state, action_profile_group=pb.ActionProfileGroup())
    assert [(m.member_id, m.watch_port) for m in groups[0].action_profile_group.members] == \
        [(1, b"\x01"), (2, b"\x02")]
    assert len(read_all(state, action_profile_member=pb.ActionProfileMember())) == 2
    # a member in use cannot go
    in_use = pb.ActionProfileMember(action_profile_id=SELECTOR, member_id=1)
    assert code_of(lambda: w.apply(update(DELETE, action_profile_member=in_use))) == \
        code_pb2.FAILED_PRECONDITION


def test_counters_meters_registers(state):
    w = EntityWriter(state)
    state.counters[PORT_COUNTER].count(3, 100)
    got = read_all(state, counter_entry=pb.CounterEntry(counter_id=PORT_COUNTER))
    assert len(got) == 8
    assert got[3].counter_entry.data.packet_count == 1
    assert got[3].counter_entry.data.byte_count == 100
    reset = pb.CounterEntry(counter_id=PORT_COUNTER)
    reset.index.index = 3
    reset.data.packet_count = 0
    w.apply(update(MODIFY, counter_entry=reset))
    assert state.counters[PORT_COUNTER].read(3).packets == 0
    assert code_of(lambda: w.apply(update(INSERT, counter_entry=reset))) == \
        code_pb2.INVALID_ARGUMENT
    meter = pb.MeterEntry(meter_id=PORT_METER)
    meter.index.index = 1
    meter.config.cir, meter.config.cburst, meter.config.pir, meter.config.pburst = 10, 5, 20, 5
    w.apply(update(MODIFY, meter_entry=meter))
    read = read_all(state, meter_entry=pb.MeterEntry(meter_id=PORT_METER))
    assert read[1].meter_entry.config.pir == 20 and not read[0].meter_entry.HasField("config")
    reg = pb.RegisterEntry(register_id=QDEPTH)
    reg.index.index = 2
    reg.data.bitstring = b"\x07"
    w.apply(update(MODIFY, register_entry=reg))
    read = read_all(state, register_entry=pb.RegisterEntry(register_id=QDEPTH))
    assert read[2].register_entry.data.bitstring == b"\x07"
    reg.data.bitstring = b"\x08\x00\x00"  # 2^19 does not fit bit<19>
    assert code_of(lambda: w.apply(update(MODIFY, register_entry=reg))) == \
        code_pb2.INVALID_ARGUMENT
    out_of_range = pb.RegisterEntry(register_id=QDEPTH)
    out_of_range.index.index = 8
    assert code_of(lambda: read_all(state, register_entry=out_of_range)) == \
        code_pb2.INVALID_ARGUMENT


def test_pre_and_digest_entries(state):
    w = EntityWriter(state)
    group = pb.MulticastGroupEntry(multicast_group_id=1)
    group.replicas.add(port=b"\x01", instance=0)
    group.replicas.add(egress_port=2, instance=0)
    w.apply(update(INSERT, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=group)))
    assert state.pre.replicas(1) == [(0, 1), (0, 2)]
    dup = pb.MulticastGroupEntry(multicast_group_id=2)
    dup.replicas.add(port=b"\x01")
    dup.replicas.add(port=b"\x01")
    assert code_of(lambda: w.apply(update(
        INSERT, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
            multicast_group_entry=dup)))) == code_pb2.INVALID_ARGUMENT
    clone = pb.CloneSessionEntry(session_id=5)
    clone.replicas.add(port=b"\xff", instance=1)
    w.apply(update(INSERT, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        clone_session_entry=clone)))
    read = read_all(state, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        clone_session_entry=pb.CloneSessionEntry()))
    assert read[0].packet_replication_engine_entry.clone_session_entry.replicas[0].port == \
        b"\xff"
    clone.class_of_service = 1
    assert code_of(lambda: w.apply(update(
        MODIFY, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
            clone_session_entry=clone)))) == code_pb2.UNIMPLEMENTED
    digest = pb.DigestEntry(digest_id=LEARN)
    digest.config.max_list_size = 1
    w.apply(update(INSERT, digest_entry=digest))
    assert read_all(state, digest_entry=pb.DigestEntry())[0].digest_entry.digest_id == LEARN
    bad = pb.DigestEntry(digest_id=LEARN + 1)
    assert code_of(lambda: w.apply(update(INSERT, digest_entry=bad))) == \
        code_pb2.INVALID_ARGUMENT


def test_unsupported_entity_is_unimplemented(state):
    w = EntityWriter(state)
    assert code_of(lambda: w.apply(update(INSERT, extern_entry=pb.ExternEntry()))) == \
        code_pb2.UNIMPLEMENTED


def test_reads_echo_the_port_encoding_the_client_wrote(state):
    forms: dict = {}
    w = EntityWriter(state, forms)
    old_style = pb.MulticastGroupEntry(multicast_group_id=3)
    old_style.replicas.add(egress_port=4, instance=1)
    new_style = pb.MulticastGroupEntry(multicast_group_id=4)
    new_style.replicas.add(port=b"\x04", instance=1)
    for group in (old_style, new_style):
        w.apply(update(INSERT, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
            multicast_group_entry=group)))
    member = pb.ActionProfileMember(action_profile_id=SELECTOR, member_id=1)
    member.action.action_id = SET_NHOP
    member.action.params.add(param_id=1, value=b"\x01")
    w.apply(update(INSERT, action_profile_member=member))
    group = pb.ActionProfileGroup(action_profile_id=SELECTOR, group_id=1)
    group.members.add(member_id=1, weight=1, watch=6)
    w.apply(update(INSERT, action_profile_group=group))
    reader = EntityReader(state, forms)
    read = [e.packet_replication_engine_entry.multicast_group_entry for e in reader.read(
        pb.Entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
            multicast_group_entry=pb.MulticastGroupEntry())))]
    assert read[0] == old_style and read[1] == new_style
    got = next(reader.read(pb.Entity(action_profile_group=pb.ActionProfileGroup())))
    assert got.action_profile_group.members[0].watch == 6
