"""Raw gRPC against the P4Runtime server: codes, arbitration, bad input, vanishing clients."""

from __future__ import annotations

import threading
import time

import grpc
import pytest
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2 as pb

from .fake_program import CPU_PORT, DEVICE_CONFIG, DEVICE_ID, FORWARD, LPM, push_pipeline
from .stream_client import StreamClient

SetReq = pb.SetForwardingPipelineConfigRequest
GetReq = pb.GetForwardingPipelineConfigRequest


def status_of(fn) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as err:
        fn()
    return err.value.code()


def lpm_update(prefix: bytes, port: bytes = b"\x01", op=pb.Update.INSERT) -> pb.Update:
    te = pb.TableEntry(table_id=LPM)
    fm = te.match.add(field_id=1)
    fm.lpm.value = prefix
    fm.lpm.prefix_len = 32
    te.action.action.action_id = FORWARD
    te.action.action.params.add(param_id=1, value=b"\x01")
    te.action.action.params.add(param_id=2, value=port)
    return pb.Update(type=op, entity=pb.Entity(table_entry=te))


def write(stub, *updates, election_id: int = 0, **kw):
    req = pb.WriteRequest(device_id=DEVICE_ID, updates=updates, **kw)
    req.election_id.low = election_id
    return stub.Write(req)


def read(stub, entity: pb.Entity, device_id: int = DEVICE_ID) -> list[pb.Entity]:
    req = pb.ReadRequest(device_id=device_id, entities=[entity])
    return [e for resp in stub.Read(req) for e in resp.entities]


def test_capabilities(stub):
    assert stub.Capabilities(pb.CapabilitiesRequest()).p4runtime_api_version.startswith("1.")


def test_no_pipeline_is_failed_precondition(stub):
    assert status_of(lambda: write(stub, lpm_update(b"\x0a\x00\x00\x01"))) == \
        grpc.StatusCode.FAILED_PRECONDITION
    assert status_of(lambda: read(stub, pb.Entity(table_entry=pb.TableEntry()))) == \
        grpc.StatusCode.FAILED_PRECONDITION
    empty = stub.GetForwardingPipelineConfig(GetReq(device_id=DEVICE_ID))
    assert not empty.config.p4_device_config


def test_wrong_device_is_not_found(stub, p4info):
    push_pipeline(stub, p4info)
    assert status_of(lambda: read(stub, pb.Entity(table_entry=pb.TableEntry()),
                                  device_id=99)) == grpc.StatusCode.NOT_FOUND
    req = pb.WriteRequest(device_id=99, updates=[lpm_update(b"\x0a\x00\x00\x01")])
    assert status_of(lambda: stub.Write(req)) == grpc.StatusCode.NOT_FOUND


def test_set_pipeline_actions_and_get_response_types(stub, p4info, switch):
    def set_req(action, device_config=DEVICE_CONFIG, cookie=1):
        req = SetReq(device_id=DEVICE_ID, action=action)
        req.config.p4info.CopyFrom(p4info)
        req.config.p4_device_config = device_config
        req.config.cookie.cookie = cookie
        return req

    assert status_of(lambda: stub.SetForwardingPipelineConfig(
        set_req(SetReq.VERIFY, device_config=b"garbage"))) == grpc.StatusCode.INVALID_ARGUMENT
    commit = SetReq(device_id=DEVICE_ID, action=SetReq.COMMIT)  # COMMIT carries no config
    assert status_of(lambda: stub.SetForwardingPipelineConfig(commit)) == \
        grpc.StatusCode.NOT_FOUND
    stub.SetForwardingPipelineConfig(set_req(SetReq.VERIFY))
    assert switch.core.program is None
    stub.SetForwardingPipelineConfig(set_req(SetReq.VERIFY_AND_SAVE, cookie=11))
    assert switch.core.program is None
    assert status_of(lambda: stub.SetForwardingPipelineConfig(set_req(SetReq.COMMIT))) == \
        grpc.StatusCode.INVALID_ARGUMENT
    stub.SetForwardingPipelineConfig(commit)
    assert switch.core.program.cookie == 11
    write(stub, lpm_update(b"\x0a\x00\x00\x01"))
    # reconcile with the same program keeps the entries
    stub.SetForwardingPipelineConfig(set_req(SetReq.RECONCILE_AND_COMMIT, cookie=12))
    assert len(read(stub, pb.Entity(table_entry=pb.TableEntry(table_id=LPM)))) == 1
    cookie_only = stub.GetForwardingPipelineConfig(
        GetReq(device_id=DEVICE_ID, response_type=GetReq.COOKIE_ONLY)).config
    assert cookie_only.cookie.cookie == 12
    assert not cookie_only.HasField("p4info") and not cookie_only.p4_device_config
    p4_only = stub.GetForwardingPipelineConfig(
        GetReq(device_id=DEVICE_ID, response_type=GetReq.P4INFO_AND_COOKIE)).config
    assert p4_only.p4info == p4info and not p4_only.p4_device_config
    dev_only = stub.GetForwardingPipelineConfig(
        GetReq(device_id=DEVICE_ID, response_type=GetReq.DEVICE_CONFIG_AND_COOKIE)).config
    assert dev_only.p4_device_config == DEVICE_CONFIG and not dev_only.HasField("p4info")
    full = stub.GetForwardingPipelineConfig(GetReq(device_id=DEVICE_ID)).config
    assert full.p4info == p4info and full.p4_device_config == DEVICE_CONFIG
    # a fresh commit starts from empty state
    stub.SetForwardingPipelineConfig(set_req(SetReq.VERIFY_AND_COMMIT))
    assert read(stub, pb.Entity(table_entry=pb.TableEntry(table_id=LPM))) == []


def test_p4info_not_matching_the_program_is_invalid(stub, p4info):
    bad = type(p4info)()
    bad.CopyFrom(p4info)
    bad.tables[0].preamble.name = "Other.table"
    req = SetReq(device_id=DEVICE_ID, action=SetReq.VERIFY_AND_COMMIT)
    req.config.p4info.CopyFrom(bad)
    req.config.p4_device_config = DEVICE_CONFIG
    assert status_of(lambda: stub.SetForwardingPipelineConfig(req)) == \
        grpc.StatusCode.INVALID_ARGUMENT


def test_batch_errors_are_per_update_details(stub, p4info):
    push_pipeline(stub, p4info)
    write(stub, lpm_update(b"\x0a\x00\x00\x01"))
    with pytest.raises(grpc.RpcError) as err:
        write(stub, lpm_update(b"\x0a\x00\x00\x02"), lpm_update(b"\x0a\x00\x00\x01"),
              lpm_update(b"\x0a\x00\x00\x03", port=b"\x02\x00"),
              lpm_update(b"\x0a\x00\x00\x09", op=pb.Update.DELETE))
    assert err.value.code() == grpc.StatusCode.UNKNOWN
    details = dict(err.value.trailing_metadata())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(details)
    codes = []
    for any_msg in status.details:
        error = pb.Error()
        any_msg.Unpack(error)
        codes.append(error.canonical_code)
    assert codes == [code_pb2.OK, code_pb2.ALREADY_EXISTS, code_pb2.INVALID_ARGUMENT,
                     code_pb2.NOT_FOUND]
    # CONTINUE_ON_ERROR: the good update went in
    assert len(read(stub, pb.Entity(table_entry=pb.TableEntry(table_id=LPM)))) == 2
    assert status_of(lambda: write(stub, lpm_update(b"\x0a\x00\x00\x05"),
                                   atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)) == \
        grpc.StatusCode.UNIMPLEMENTED


def test_primary_and_backup_writes(switch, stub, p4info):
    a, b = StreamClient(switch.addr), StreamClient(switch.addr)
    try:
        a.arbitrate(10)
        assert a.next("arbitration").arbitration.status.code == code_pb2.OK
        b.arbitrate(5)
        notice = b.next("arbitration").arbitration
        assert notice.status.code == code_pb2.ALREADY_EXISTS
        assert notice.election_id.low == 10
        assert status_of(lambda: push_pipeline(stub, p4info, election_id=5)) == \
            grpc.StatusCode.PERMISSION_DENIED
        assert status_of(lambda: push_pipeline(stub, p4info, election_id=0)) == \
            grpc.StatusCode.PERMISSION_DENIED
        push_pipeline(stub, p4info, election_id=10)
        assert status_of(lambda: write(stub, lpm_update(b"\x0a\x00\x00\x01"),
                                       election_id=5)) == grpc.StatusCode.PERMISSION_DENIED
        write(stub, lpm_update(b"\x0a\x00\x00\x01"), election_id=10)
        # reads need no arbitration
        assert len(read(stub, pb.Entity(table_entry=pb.TableEntry(table_id=LPM)))) == 1
    finally:
        a.close()
        b.close()


def test_duplicate_election_id_ends_the_stream(switch):
    a, b = StreamClient(switch.addr), StreamClient(switch.addr)
    try:
        a.arbitrate(7)
        a.next("arbitration")
        b.arbitrate(7)
        assert b.next() is None
        assert b.error.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        a.close()
        b.close()


def test_primary_vanishing_promotes_backup(switch):
    a, b = StreamClient(switch.addr), StreamClient(switch.addr)
    try:
        a.arbitrate(10)
        a.next("arbitration")
        b.arbitrate(5)
        assert b.next("arbitration").arbitration.status.code == code_pb2.ALREADY_EXISTS
        a.channel.close()  # vanish without a goodbye
        notice = b.next("arbitration", timeout=5).arbitration
        assert notice.status.code == code_pb2.OK and notice.election_id.low == 5
    finally:
        a.close()
        b.close()


def test_racing_clients_end_with_one_primary(switch, stub, p4info):
    clients = [StreamClient(switch.addr) for _ in range(6)]
    try:
        barrier = threading.Barrier(len(clients))

        def go(client, eid):
            barrier.wait()
            client.arbitrate(eid)

        threads = [threading.Thread(target=go, args=(c, i + 1)) for i, c in enumerate(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        last: dict[int, pb.MasterArbitrationUpdate] = {}
        deadline = time.time() + 10
        # every client ends up told that election id 6 won
        while time.time() < deadline and not (
                len(last) == len(clients)
                and all(m.election_id.low == 6 for m in last.values())):
            for i, c in enumerate(clients):
                while not c.responses.empty():
                    msg = c.responses.get_nowait()
                    if msg is not None and msg.HasField("arbitration"):
                        last[i] = msg.arbitration
            time.sleep(0.01)
        assert [i for i, m in last.items() if m.status.code == code_pb2.OK] == [5]
        assert all(m.election_id.low == 6 for m in last.values())
        push_pipeline(stub, p4info, election_id=6)
    finally:
        for c in clients:
            c.close()


def test_garbage_bytes_are_refused_and_server_keeps_serving(switch, stub, p4info):
    channel = grpc.insecure_channel(switch.addr)
    try:
        for method in ("Write", "Read", "SetForwardingPipelineConfig"):
            call = channel.unary_unary(f"/p4.v1.P4Runtime/{method}")
            with pytest.raises(grpc.RpcError) as err:
                call(b"\xff\xff\xff\xff\x0f garbage", timeout=5)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "is not a valid p4.v1." in err.value.details()
    finally:
        channel.close()
    push_pipeline(stub, p4info)
    write(stub, lpm_update(b"\x0a\x00\x00\x01"))


def test_garbage_on_the_stream_gets_a_stream_error_and_the_stream_goes_on(switch):
    channel = grpc.insecure_channel(switch.addr)
    arbitration = pb.StreamMessageRequest()
    arbitration.arbitration.device_id = 1
    arbitration.arbitration.election_id.low = 1
    requests = [b"\xff\xff\xff\xff\x0f garbage", arbitration.SerializeToString()]
    try:
        call = channel.stream_stream("/p4.v1.P4Runtime/StreamChannel",
                                     response_deserializer=pb.StreamMessageResponse.FromString)
        responses = call(iter(requests), timeout=5)
        first, second = next(responses), next(responses)
        assert first.error.canonical_code == code_pb2.INVALID_ARGUMENT
        assert "StreamMessageRequest" in first.error.message
        assert second.arbitration.status.code == code_pb2.OK  # the same stream, primary
        responses.cancel()
    finally:
        channel.close()


def test_bad_packet_out_gets_stream_error(switch, stub, p4info):
    push_pipeline(stub, p4info)
    client = StreamClient(switch.addr)
    try:
        early = pb.StreamMessageRequest()
        early.packet.payload = b"x"
        client.send(early)
        assert client.next("error").error.canonical_code == code_pb2.FAILED_PRECONDITION
        client.arbitrate(1)
        client.next("arbitration")
        bad = pb.StreamMessageRequest()
        bad.packet.payload = b"payload"
        bad.packet.metadata.add(metadata_id=77, value=b"\x01")
        client.send(bad)
        error = client.next("error").error
        assert error.canonical_code == code_pb2.INVALID_ARGUMENT
        assert error.packet_out.packet_out.payload == b"payload"
        # still usable: a good PacketOut reaches the pipeline
        good = pb.StreamMessageRequest()
        good.packet.payload = b"\x00" * 14
        good.packet.metadata.add(metadata_id=1, value=b"\x02")
        client.send(good)
        pipeline = switch.core.program.pipeline
        deadline = time.time() + 2
        while not pipeline.received and time.time() < deadline:
            time.sleep(0.01)
        assert pipeline.received and pipeline.received[0][0] == CPU_PORT
    finally:
        client.close()


def test_pipeline_crash_on_one_packet_keeps_switch_forwarding(switch, stub, p4info):
    push_pipeline(stub, p4info)
    client = StreamClient(switch.addr)
    try:
        client.arbitrate(1)
        client.next("arbitration")
        switch.core.inject(2, b"CRASH" + b"\x00" * 20)
        switch.core.inject(2, b"\x02" * 20)
        msg = client.next("packet")
        assert msg.packet.payload == b"\x02" * 20
        assert switch.tm.pipeline_errors == 1
    finally:
        client.close()


def test_digest_lists_reach_the_primary_and_acks_are_taken(switch, stub, p4info):
    from .fake_program import LEARN
    push_pipeline(stub, p4info)
    digest = pb.DigestEntry(digest_id=LEARN)
    digest.config.max_list_size = 1
    write(stub, pb.Update(type=pb.Update.INSERT, entity=pb.Entity(digest_entry=digest)))
    client = StreamClient(switch.addr)
    try:
        client.arbitrate(1)
        client.next("arbitration")
        with switch.core.lock:
            switch.core.program.state.digest_queue.push(LEARN, (0xAABB, 3),
                                                        switch.core.clock_us() * 1000)
        msg = client.next("digest").digest
        assert msg.digest_id == LEARN
        members = [m.bitstring for m in msg.data[0].struct.members]
        assert members == [b"\xaa\xbb", b"\x03"]
        ack = pb.StreamMessageRequest()
        ack.digest_ack.digest_id = LEARN
        ack.digest_ack.list_id = msg.list_id
        client.send(ack)
        deadline = time.time() + 2
        queue_state = switch.core.program.state.digest_queue._states[LEARN]
        while queue_state.outstanding is not None and time.time() < deadline:
            time.sleep(0.01)
        assert queue_state.outstanding is None
    finally:
        client.close()


def test_large_failed_batch_still_reports_codes_within_metadata_limits(stub, p4info):
    from p4emu.switch.p4rt_errors import MAX_DETAILS_BYTES, write_error_details

    push_pipeline(stub, p4info)
    updates = [lpm_update((0x0B000000 + i).to_bytes(4, "big")) for i in range(100)]
    updates.append(updates[0])  # the last one is a duplicate
    with pytest.raises(grpc.RpcError) as err:
        write(stub, *updates)
    assert err.value.code() == grpc.StatusCode.UNKNOWN
    status = status_pb2.Status.FromString(
        dict(err.value.trailing_metadata())["grpc-status-details-bin"])
    assert len(status.details) == 101
    last = pb.Error()
    status.details[-1].Unpack(last)
    assert last.canonical_code == code_pb2.ALREADY_EXISTS
    huge = [pb.Error(canonical_code=code_pb2.OK)] * 1000
    assert len(write_error_details(huge, "x")) <= MAX_DETAILS_BYTES


def test_watch_ports_follow_the_switch_link_state(switch, stub, p4info):
    from .fake_program import SELECTOR, SET_NHOP

    links = {1: True, 2: True}
    switch.core.port_up = links.__getitem__
    push_pipeline(stub, p4info)
    updates = []
    for mid in (1, 2):
        member = pb.ActionProfileMember(action_profile_id=SELECTOR, member_id=mid)
        member.action.action_id = SET_NHOP
        member.action.params.add(param_id=1, value=bytes([mid]))
        updates.append(pb.Update(type=pb.Update.INSERT,
                                 entity=pb.Entity(action_profile_member=member)))
    group = pb.ActionProfileGroup(action_profile_id=SELECTOR, group_id=1)
    group.members.add(member_id=1, weight=1, watch_port=b"\x01")
    group.members.add(member_id=2, weight=1, watch_port=b"\x02")
    updates.append(pb.Update(type=pb.Update.INSERT, entity=pb.Entity(action_profile_group=group)))
    write(stub, *updates)
    profile = switch.core.program.state.action_profiles[SELECTOR]
    assert [m.member_id for m in profile.active_members(1)] == [1, 2]
    links[2] = False  # what the link monitor reports when the interface goes down
    assert [m.member_id for m in profile.active_members(1)] == [1]
