"""P4Runtime spec / PI conformance of the server, over raw gRPC (one check per rule)."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2 as pb

from .fake_program import (
    ACL,
    CONSTS,
    DEVICE_CONFIG,
    DEVICE_ID,
    DROP,
    ECMP,
    FORWARD,
    LPM,
    NO_ACTION,
    PORT_COUNTER,
    QDEPTH,
    SELECTOR,
    SET_NHOP,
    push_pipeline,
)
from .stream_client import StreamClient
from .test_grpc_server import read, status_of, write

INSERT, MODIFY, DELETE = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE
SetReq = pb.SetForwardingPipelineConfigRequest
GetReq = pb.GetForwardingPipelineConfigRequest


@pytest.fixture
def ready(stub, p4info):
    push_pipeline(stub, p4info)
    return stub


def upd(op, **entity) -> pb.Update:
    return pb.Update(type=op, entity=pb.Entity(**entity))


def lpm(prefix=b"\x0a\x00\x01\x00", plen=24, action=FORWARD, port=b"\x01",
        priority=0) -> pb.TableEntry:
    te = pb.TableEntry(table_id=LPM, priority=priority)
    fm = te.match.add(field_id=1)
    fm.lpm.value = prefix
    fm.lpm.prefix_len = plen
    te.action.action.action_id = action
    if action == FORWARD:
        te.action.action.params.add(param_id=1, value=b"\x01")
        te.action.action.params.add(param_id=2, value=port)
    return te


def acl(value=b"\x08\x00", mask=b"\xff\xff", priority=10) -> pb.TableEntry:
    te = pb.TableEntry(table_id=ACL, priority=priority)
    fm = te.match.add(field_id=1)
    fm.ternary.value = value
    fm.ternary.mask = mask
    te.action.action.action_id = DROP
    return te


def write_code(stub, *updates) -> int:
    """The canonical code of the single update (OK when the write succeeds)."""
    try:
        write(stub, *updates)
    except grpc.RpcError as err:
        codes = details_codes(err)
        assert len(codes) == len(updates)
        return codes[0]
    return code_pb2.OK


def details_codes(err: grpc.RpcError) -> list[int]:
    assert err.code() == grpc.StatusCode.UNKNOWN
    raw = dict(err.trailing_metadata())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(raw)
    assert status.code == code_pb2.UNKNOWN
    out = []
    for any_msg in status.details:
        error = pb.Error()
        assert any_msg.Unpack(error)
        out.append(error.canonical_code)
    return out


def entries(stub, **query) -> list[pb.TableEntry]:
    return [e.table_entry for e in read(stub, pb.Entity(table_entry=pb.TableEntry(**query)))]


# --- Write error reporting and entry identity
def test_failed_batch_reports_every_update_in_order(ready):
    with pytest.raises(grpc.RpcError) as err:
        write(ready, upd(INSERT, table_entry=lpm()), upd(INSERT, table_entry=lpm()),
              upd(MODIFY, table_entry=lpm(prefix=b"\x0b\x00\x00\x00")))
    assert details_codes(err.value) == [code_pb2.OK, code_pb2.ALREADY_EXISTS,
                                        code_pb2.NOT_FOUND]
    raw = dict(err.value.trailing_metadata())["grpc-status-details-bin"]
    first = pb.Error()
    status_pb2.Status.FromString(raw).details[1].Unpack(first)
    assert first.message  # a failed update says why


def test_insert_differing_only_in_action_is_already_exists(ready):
    write(ready, upd(INSERT, table_entry=lpm()))
    assert write_code(ready, upd(INSERT, table_entry=lpm(action=DROP))) == \
        code_pb2.ALREADY_EXISTS


def test_modify_and_delete_missing_are_not_found_and_delete_matches_key_only(ready):
    assert write_code(ready, upd(MODIFY, table_entry=lpm())) == code_pb2.NOT_FOUND
    assert write_code(ready, upd(DELETE, table_entry=lpm())) == code_pb2.NOT_FOUND
    write(ready, upd(INSERT, table_entry=lpm()))
    key_only = lpm()
    key_only.ClearField("action")
    write(ready, upd(DELETE, table_entry=key_only))
    assert entries(ready, table_id=LPM) == []


# --- priorities and don't-care rules
@pytest.mark.parametrize("entry", [
    lpm(priority=1),  # no priority for lpm/exact tables
    acl(priority=0),  # ternary tables need one
    acl(mask=b"\x00"),  # don't care must be omitted
    acl(value=b"\x08\x01", mask=b"\xff\x00"),  # value bits outside mask
    lpm(plen=0, prefix=b"\x00"),  # /0 must be omitted
    lpm(prefix=b"\x0a\x00\x01\x01"),  # bits past the prefix
    lpm(prefix=b"\x01\x0a\x00\x01\x00"),  # a value wider than bit<32>
    lpm(port=b"\x02\x00"),  # 512 does not fit bit<9>
])
def test_malformed_entries_are_invalid_argument(ready, entry):
    assert write_code(ready, upd(INSERT, table_entry=entry)) == code_pb2.INVALID_ARGUMENT


def test_canonical_and_padded_bytestrings_are_the_same_entry(ready):
    write(ready, upd(INSERT, table_entry=lpm(port=b"\x00\x05")))
    got = entries(ready, table_id=LPM)
    assert got[0].action.action.params[1].value == b"\x05"  # read back canonical
    padded = lpm(prefix=b"\x0a\x00\x01\x00")
    assert write_code(ready, upd(INSERT, table_entry=padded)) == code_pb2.ALREADY_EXISTS
    small = acl(value=b"\x08", mask=b"\x00\xff")  # canonical 1-byte forms of bit<16>
    write(ready, upd(INSERT, table_entry=small))
    # more leading zero bytes than the width needs: still the same value (spec 1.4)
    long_zeros = lpm(prefix=b"\x00\x00\x0a\x00\x01\x00", port=b"\x00\x00\x00\x05")
    assert write_code(ready, upd(INSERT, table_entry=long_zeros)) == code_pb2.ALREADY_EXISTS


# --- actions
def test_action_params_and_table_action_set(ready):
    missing = lpm()
    del missing.action.action.params[1]
    extra = lpm()
    extra.action.action.params.add(param_id=3, value=b"\x01")
    twice = lpm()
    twice.action.action.params.add(param_id=2, value=b"\x01")
    foreign = lpm(action=SET_NHOP)  # not in ipv4_lpm's action list
    foreign.action.action.params.add(param_id=1, value=b"\x01")
    for te in (missing, extra, twice, foreign):
        assert write_code(ready, upd(INSERT, table_entry=te)) == code_pb2.INVALID_ARGUMENT
    profile_action = lpm()
    profile_action.action.ClearField("action")
    profile_action.action.action_profile_member_id = 1  # lpm is a direct table
    assert write_code(ready, upd(INSERT, table_entry=profile_action)) == \
        code_pb2.INVALID_ARGUMENT


# --- default entries
def test_default_entry_rules(ready):
    default = pb.TableEntry(table_id=LPM, is_default_action=True)
    default.action.action.action_id = NO_ACTION
    for op in (INSERT, DELETE):
        assert write_code(ready, upd(op, table_entry=default)) == code_pb2.INVALID_ARGUMENT
    write(ready, upd(MODIFY, table_entry=default))
    got = entries(ready, table_id=LPM, is_default_action=True)
    assert len(got) == 1 and got[0].is_default_action
    assert got[0].action.action.action_id == NO_ACTION
    # MODIFY with no action: back to the program's default
    write(ready, upd(MODIFY, table_entry=pb.TableEntry(table_id=LPM, is_default_action=True)))
    got = entries(ready, table_id=LPM, is_default_action=True)
    assert got[0].action.action.action_id == DROP
    const = pb.TableEntry(table_id=CONSTS, is_default_action=True)
    const.action.action.action_id = DROP
    assert write_code(ready, upd(MODIFY, table_entry=const)) == code_pb2.PERMISSION_DENIED


# --- reads
def test_reads_wildcard_filter_and_counter_data_on_request(ready):
    write(ready, upd(INSERT, table_entry=lpm()),
          upd(INSERT, table_entry=lpm(prefix=b"\x0a\x00\x02\x00")),
          upd(INSERT, table_entry=acl()))
    every = entries(ready)  # table_id 0: every table
    assert {te.table_id for te in every} >= {LPM, ACL, CONSTS}
    assert not any(te.is_default_action for te in every)
    query = lpm()
    query.ClearField("action")
    one = [e.table_entry for e in read(ready, pb.Entity(table_entry=query))]
    assert len(one) == 1 and one[0].match == lpm().match
    # counter data only when asked for (spec: set counter_data in the read request)
    assert not any(te.HasField("counter_data") for te in entries(ready, table_id=LPM))
    ask = pb.TableEntry(table_id=LPM)
    ask.counter_data.SetInParent()
    asked = [e.table_entry for e in read(ready, pb.Entity(table_entry=ask))]
    assert len(asked) == 2 and all(te.HasField("counter_data") for te in asked)
    dce = pb.DirectCounterEntry()
    dce.table_entry.table_id = LPM
    direct = read(ready, pb.Entity(direct_counter_entry=dce))
    assert len(direct) == 2
    assert all(d.direct_counter_entry.HasField("data") for d in direct)


def test_read_of_absent_entry_answers_nothing(ready):
    query = lpm()
    query.ClearField("action")
    assert read(ready, pb.Entity(table_entry=query)) == []


# --- action profiles
def member(member_id: int, port: bytes = b"\x01", action=SET_NHOP) -> pb.Update:
    m = pb.ActionProfileMember(action_profile_id=SELECTOR, member_id=member_id)
    m.action.action_id = action
    if action == SET_NHOP:
        m.action.params.add(param_id=1, value=port)
    return upd(INSERT, action_profile_member=m)


def group(group_id: int, *members: int, weight: int = 1, max_size: int = 0,
          op=INSERT, watch: str | None = None) -> pb.Update:
    g = pb.ActionProfileGroup(action_profile_id=SELECTOR, group_id=group_id,
                              max_size=max_size)
    for m in members:
        gm = g.members.add(member_id=m, weight=weight)
        if watch == "watch":
            gm.watch = 1
        elif watch == "watch_port":
            gm.watch_port = b"\x01"
    return upd(op, action_profile_group=g)


def test_action_profile_rules(ready):
    write(ready, member(1), member(2, b"\x02"))
    assert write_code(ready, member(3, action=DROP)) == code_pb2.INVALID_ARGUMENT
    assert write_code(ready, group(10, 1, 99)) == code_pb2.NOT_FOUND
    assert write_code(ready, group(10, 1, weight=0)) == code_pb2.INVALID_ARGUMENT
    assert write_code(ready, group(10, 1, max_size=9)) == code_pb2.INVALID_ARGUMENT
    assert write_code(ready, group(10, 1, 2, weight=5)) == code_pb2.RESOURCE_EXHAUSTED
    write(ready, group(10, 1, watch="watch"), group(11, 2, watch="watch_port"))
    forms = {g.action_profile_group.group_id: g.action_profile_group.members[0]
             .WhichOneof("watch_kind")
             for g in read(ready, pb.Entity(action_profile_group=pb.ActionProfileGroup()))}
    assert forms == {10: "watch", 11: "watch_port"}
    delete_member = pb.ActionProfileMember(action_profile_id=SELECTOR, member_id=1)
    assert write_code(ready, upd(DELETE, action_profile_member=delete_member)) == \
        code_pb2.FAILED_PRECONDITION
    assert write_code(ready, group(12, 1, op=MODIFY)) == code_pb2.NOT_FOUND
    assert write_code(ready, group(10, 99)) == code_pb2.ALREADY_EXISTS  # group checked first
    one_shot = pb.TableEntry(table_id=ECMP)
    one_shot.match.add(field_id=1).exact.value = b"\x01"
    one_shot.action.action_profile_action_set.action_profile_actions.add(
        action=pb.Action(action_id=SET_NHOP), weight=1)
    assert write_code(ready, upd(INSERT, table_entry=one_shot)) in (
        code_pb2.UNIMPLEMENTED, code_pb2.OK)


# --- packet replication engine
def mcast(gid: int, replicas, op=INSERT) -> pb.Update:
    g = pb.MulticastGroupEntry(multicast_group_id=gid)
    for rid, port in replicas:
        g.replicas.add(instance=rid, port=port)
    return upd(op, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=g))


def test_multicast_and_clone_sessions(ready):
    write(ready, mcast(1, [(0, b"\x01"), (0, b"\x02")]))
    assert write_code(ready, mcast(1, [(0, b"\x01")])) == code_pb2.ALREADY_EXISTS
    assert write_code(ready, mcast(2, [(0, b"\x01")], op=MODIFY)) == code_pb2.NOT_FOUND
    assert write_code(ready, mcast(3, [(0, b"\x01"), (0, b"\x01")])) == \
        code_pb2.INVALID_ARGUMENT
    write(ready, mcast(1, [(1, b"\x03")], op=MODIFY))
    got = read(ready, pb.Entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=pb.MulticastGroupEntry())))
    replicas = got[0].packet_replication_engine_entry.multicast_group_entry.replicas
    assert [(r.instance, r.port) for r in replicas] == [(1, b"\x03")]
    write(ready, mcast(1, [], op=DELETE))
    assert write_code(ready, mcast(1, [], op=DELETE)) == code_pb2.NOT_FOUND
    clone = pb.CloneSessionEntry(session_id=5)
    clone.replicas.add(instance=1, port=b"\x02")
    pre = pb.PacketReplicationEngineEntry(clone_session_entry=clone)
    write(ready, upd(INSERT, packet_replication_engine_entry=pre))
    assert write_code(ready, upd(INSERT, packet_replication_engine_entry=pre)) == \
        code_pb2.ALREADY_EXISTS
    write(ready, upd(DELETE, packet_replication_engine_entry=pre))


# --- indexed externs
def test_index_out_of_range(ready):
    counter = pb.CounterEntry(counter_id=PORT_COUNTER)
    counter.index.index = 8
    counter.data.packet_count = 1
    assert write_code(ready, upd(MODIFY, counter_entry=counter)) in (
        code_pb2.OUT_OF_RANGE, code_pb2.INVALID_ARGUMENT)
    assert status_of(lambda: read(ready, pb.Entity(counter_entry=counter))) in (
        grpc.StatusCode.OUT_OF_RANGE, grpc.StatusCode.INVALID_ARGUMENT)
    register = pb.RegisterEntry(register_id=QDEPTH)
    register.index.index = 100
    register.data.bitstring = b"\x01"
    assert write_code(ready, upd(MODIFY, register_entry=register)) in (
        code_pb2.OUT_OF_RANGE, code_pb2.INVALID_ARGUMENT)
    counter.index.index = 3
    write(ready, upd(MODIFY, counter_entry=counter))
    got = read(ready, pb.Entity(counter_entry=counter))
    assert got[0].counter_entry.data.packet_count == 1


# --- pipeline config
def _set(stub, p4info, action, election_id=0, cookie=3):
    req = SetReq(device_id=DEVICE_ID, action=action)
    req.election_id.low = election_id
    req.config.p4info.CopyFrom(p4info)
    req.config.p4_device_config = DEVICE_CONFIG
    req.config.cookie.cookie = cookie
    return stub.SetForwardingPipelineConfig(req)


def test_verify_changes_nothing_and_commit_needs_a_saved_config(stub, p4info):
    _set(stub, p4info, SetReq.VERIFY)
    assert not stub.GetForwardingPipelineConfig(GetReq(device_id=DEVICE_ID)).config.p4info.tables
    commit = SetReq(device_id=DEVICE_ID, action=SetReq.COMMIT)
    # spec: COMMIT with nothing saved is NOT_FOUND; COMMIT with a config INVALID_ARGUMENT
    assert status_of(lambda: stub.SetForwardingPipelineConfig(commit)) == \
        grpc.StatusCode.NOT_FOUND
    _set(stub, p4info, SetReq.VERIFY_AND_SAVE, cookie=9)
    # after a save, Read/Write/Get refer to the saved config; COMMIT realizes the writes
    write(stub, upd(INSERT, table_entry=lpm()))
    assert len(entries(stub, table_id=LPM)) == 1
    assert stub.GetForwardingPipelineConfig(GetReq(device_id=DEVICE_ID)).config.cookie.cookie == 9
    assert status_of(lambda: _set(stub, p4info, SetReq.COMMIT)) == \
        grpc.StatusCode.INVALID_ARGUMENT
    stub.SetForwardingPipelineConfig(commit)
    cookie_only = stub.GetForwardingPipelineConfig(
        GetReq(device_id=DEVICE_ID, response_type=GetReq.COOKIE_ONLY)).config
    assert cookie_only.cookie.cookie == 9 and not cookie_only.p4info.tables
    assert not cookie_only.p4_device_config
    assert len(entries(stub, table_id=LPM)) == 1  # the write made before COMMIT took effect


def test_capabilities_version_is_semver(stub):
    version = stub.Capabilities(pb.CapabilitiesRequest()).p4runtime_api_version
    assert len(version.split(".")) == 3 and all(p.isdigit() for p in version.split("."))


# --- arbitration
def test_primary_change_is_told_to_every_client(switch, stub, p4info):
    a, b = StreamClient(switch.addr), StreamClient(switch.addr)
    try:
        a.arbitrate(5)
        assert a.next("arbitration").arbitration.status.code == code_pb2.OK
        b.arbitrate(9)
        new = b.next("arbitration").arbitration
        assert new.status.code == code_pb2.OK and new.election_id.low == 9
        told = a.next("arbitration").arbitration
        assert told.status.code == code_pb2.ALREADY_EXISTS and told.election_id.low == 9
        assert status_of(lambda: _set(stub, p4info, SetReq.VERIFY_AND_COMMIT, 5)) == \
            grpc.StatusCode.PERMISSION_DENIED
        _set(stub, p4info, SetReq.VERIFY_AND_COMMIT, 9)
        assert status_of(lambda: write(stub, upd(INSERT, table_entry=lpm()),
                                       election_id=5)) == grpc.StatusCode.PERMISSION_DENIED
    finally:
        a.close()
        b.close()


def test_roles_have_separate_primaries(switch):
    a, b = StreamClient(switch.addr), StreamClient(switch.addr)
    try:
        a.arbitrate(5)
        b.arbitrate(3, role="other")
        assert a.next("arbitration").arbitration.status.code == code_pb2.OK
        other = b.next("arbitration").arbitration
        assert other.status.code == code_pb2.OK and other.role.name == "other"
    finally:
        a.close()
        b.close()


def test_reconcile_with_a_changed_p4info_keeps_the_forwarding_state(ready, switch, p4info):
    write(ready, member(1), group(10, 1), upd(INSERT, table_entry=lpm()),
          mcast(1, [(0, b"\x01")]))
    ecmp = pb.TableEntry(table_id=ECMP)
    ecmp.match.add(field_id=1).exact.value = b"\x01"
    ecmp.action.action_profile_group_id = 10
    default = pb.TableEntry(table_id=LPM, is_default_action=True)
    default.action.action.action_id = NO_ACTION
    write(ready, upd(INSERT, table_entry=ecmp), upd(MODIFY, table_entry=default))
    old = switch.core.program
    changed = type(p4info)()
    changed.CopyFrom(p4info)
    changed.pkg_info.name = "fake-v2"  # not the same P4Info: a real reconcile
    _set(ready, changed, SetReq.RECONCILE_AND_COMMIT)
    assert switch.core.program is not old
    assert len(entries(ready, table_id=LPM)) == 1 and len(entries(ready, table_id=ECMP)) == 1
    assert entries(ready, table_id=LPM, is_default_action=True)[0].action.action.action_id \
        == NO_ACTION
    groups = read(ready, pb.Entity(action_profile_group=pb.ActionProfileGroup()))
    assert [g.action_profile_group.group_id for g in groups] == [10]
    mc = read(ready, pb.Entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=pb.MulticastGroupEntry())))
    assert len(mc) == 1


def test_digest_ack_for_an_unknown_digest_is_a_stream_error(switch, stub, p4info):
    client = StreamClient(switch.addr)
    try:
        client.arbitrate(1)
        client.next("arbitration")
        push_pipeline(stub, p4info, election_id=1)
        ack = pb.StreamMessageRequest()
        ack.digest_ack.digest_id = 0x17FFFFFF
        ack.digest_ack.list_id = 1
        client.send(ack)
        error = client.next("error").error
        assert error.canonical_code == code_pb2.INVALID_ARGUMENT
        assert error.WhichOneof("details") == "digest_list_ack"
    finally:
        client.close()


def test_pipeline_config_without_p4info_or_action_is_invalid_argument(stub):
    req = SetReq(device_id=DEVICE_ID, action=SetReq.VERIFY_AND_COMMIT)
    req.config.p4_device_config = DEVICE_CONFIG
    assert status_of(lambda: stub.SetForwardingPipelineConfig(req)) == \
        grpc.StatusCode.INVALID_ARGUMENT
    req.action = SetReq.UNSPECIFIED
    assert status_of(lambda: stub.SetForwardingPipelineConfig(req)) == \
        grpc.StatusCode.INVALID_ARGUMENT
