"""P4Runtime encoding of ops and parsing of read-back entities."""

from __future__ import annotations

import pytest
from p4.v1 import p4runtime_pb2

from mrclab.controller.next_hops import compute_next_hops
from mrclab.controller.p4rt_codec import Codec, P4Ids, decode_uint, encode_uint, pipeline_cookie
from mrclab.controller.switch_state import (
    PROBE_GROUP,
    ForwardingPolicy,
    SwitchState,
    build_switch_state,
)
from mrclab.controller.write_plan import Kind, Op, OpType, apply_ops, plan
from mrclab.fabric.spec import parse_spec
from tests.unit.controller.fake_switch import FakeSession


def test_canonical_bytestrings():
    assert encode_uint(0) == b"\x00"
    assert encode_uint(255) == b"\xff"
    assert encode_uint(256) == b"\x01\x00"
    assert decode_uint(b"\x00\x00\x05") == 5


def test_entities_carry_the_right_ids(p4info):
    codec = Codec(P4Ids(p4info))
    group = codec.update(Op(OpType.INSERT, Kind.GROUP, 24, frozenset({(3, 1), (4, 1)})))
    g = group.entity.action_profile_group
    assert group.type == p4runtime_pb2.Update.INSERT
    assert g.action_profile_id == 0x11000001 and g.group_id == 24
    assert [(m.member_id, m.weight, m.watch_port) for m in g.members] == [
        (3, 1, b"\x03"), (4, 1, b"\x04")]
    uplink = codec.entity(Op(OpType.INSERT, Kind.UPLINK, (0x0A000304, 32), 24)).table_entry
    assert uplink.table_id == 0x02000002
    assert uplink.match[0].lpm.value == b"\x0a\x00\x03\x04"
    assert uplink.match[0].lpm.prefix_len == 32
    assert uplink.action.action_profile_group_id == 24
    spray = codec.update(Op(OpType.MODIFY, Kind.SPRAY, None, (3, 0x1234)))
    assert spray.type == p4runtime_pb2.Update.MODIFY
    assert spray.entity.table_entry.is_default_action
    assert [(p.param_id, p.value) for p in spray.entity.table_entry.action.action.params] == [
        (1, b"\x03"), (2, b"\x12\x34")]
    thresholds = codec.entity(Op(OpType.INSERT, Kind.THRESHOLDS, 2, (32, 16))).table_entry
    assert [p.value for p in thresholds.action.action.params] == [b"\x20", b"\x10"]
    delete = codec.entity(Op(OpType.DELETE, Kind.DOWNLINK, (1, 32), 5)).table_entry
    assert not delete.HasField("action")


def test_written_state_reads_back_equal(p4info):
    """Encode a full switch state into a fake switch, read it back, get the same state."""
    codec = Codec(P4Ids(p4info))
    fabric = parse_spec("fattree:k=4")
    desired = build_switch_state([1, 2, 3, 4], compute_next_hops(fabric)["a3"],
                                 ForwardingPolicy(2, 30, 12), salt=7,
                                 probe_ports=frozenset({1, 2, 3, 4}))
    assert desired.multicast == {PROBE_GROUP: frozenset({1, 2, 3, 4})}
    switch = FakeSession("a3", 1, "", 1, None, None, None)
    for phase in plan(SwitchState(), desired):
        assert switch.write([codec.update(op) for op in phase]) == []
    back = codec.parse_state(switch.read(codec.read_request_entities()))
    assert back == desired
    current = SwitchState()
    for phase in plan(SwitchState(), desired):
        apply_ops(current, phase)
    assert current == back


def test_probe_group_is_a_multicast_group_of_the_probed_ports(p4info):
    codec = Codec(P4Ids(p4info))
    insert = codec.entity(Op(OpType.INSERT, Kind.MULTICAST, PROBE_GROUP, frozenset({4, 1})))
    group = insert.packet_replication_engine_entry.multicast_group_entry
    assert group.multicast_group_id == PROBE_GROUP
    assert [(r.port, r.instance) for r in group.replicas] == [(b"\x01", 0), (b"\x04", 0)]
    delete = codec.entity(Op(OpType.DELETE, Kind.MULTICAST, PROBE_GROUP, frozenset({4, 1})))
    assert not delete.packet_replication_engine_entry.multicast_group_entry.replicas
    # a target may answer with the older int form of a replica's port
    old_form = p4runtime_pb2.Entity()
    old_group = old_form.packet_replication_engine_entry.multicast_group_entry
    old_group.multicast_group_id = PROBE_GROUP
    old_group.replicas.add(egress_port=2, instance=0)
    old_group.replicas.add(egress_port=300, instance=0)
    assert codec.parse_state([old_form]).multicast == {PROBE_GROUP: frozenset({2, 300})}
    # the wildcard read asks for every multicast group
    (pre,) = [e for e in codec.read_request_entities()
              if e.WhichOneof("entity") == "packet_replication_engine_entry"]
    assert pre.packet_replication_engine_entry.multicast_group_entry.multicast_group_id == 0


def test_packet_out_to_a_port_or_to_the_probe_group(p4info, p4info_without_probe_group):
    codec = Codec(P4Ids(p4info))
    assert codec.probes_to_group
    assert codec.packet_out_metadata(3) == {1: b"\x03", 2: b"\x00", 3: b"\x00"}
    assert codec.packet_out_metadata(None) == {1: b"\x00", 2: b"\x01", 3: b"\x00"}
    older = Codec(P4Ids(p4info_without_probe_group))
    assert not older.probes_to_group
    assert older.packet_out_metadata(3) == {1: b"\x03", 2: b"\x00"}
    with pytest.raises(ValueError, match="no probe_group field"):
        older.packet_out_metadata(None)


def test_cookie_depends_on_program(p4info):
    assert pipeline_cookie(p4info, b"a") == pipeline_cookie(p4info, b"a")
    assert pipeline_cookie(p4info, b"a") != pipeline_cookie(p4info, b"b")
