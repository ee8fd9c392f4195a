"""Malformed and out-of-range P4Runtime writes to a compiled switch (mrc.p4 on the compiled
pipeline, compiled traffic manager and data-plane loop in C, socket-pair ports): each
update gets its code in the WriteRequest's error details (P4Runtime spec "Write RPC"),
nothing half-applied reaches the C tables, and the switch forwards correctly afterwards.

Codes are the spec's; where the spec and PI (simple_switch_grpc) differ, p4emu answers as
PI does, as the lab runs both: a value wider than its field is INVALID_ARGUMENT (PI's
bytestring_p4rt_to_pi; the spec's "Bytestrings" section says OUT_OF_RANGE).
"""

from __future__ import annotations

import random
import socket
import time
from pathlib import Path

import grpc
import pytest
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2 as pb
from p4.v1 import p4runtime_pb2_grpc

from p4emu.frontend import compile_file
from p4emu.native.pipeline import NativePipeline
from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.grpc_server import serve
from p4emu.switch.native_traffic_manager import NativeTrafficManager
from p4emu.switch.ports import MAX_FRAME, Port, PortSet
from p4emu.switch.program import ir_loader
from p4emu.switch.traffic_manager import QueueSettings

ROOT = Path(__file__).resolve().parents[3]
PROGRAM = ROOT / "mrclab" / "p4src" / "mrc.p4"
DEVICE_ID, CPU_PORT = 3, 255
INSERT, MODIFY, DELETE = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE
OK, INVALID, NOT_FOUND, EXISTS = (code_pb2.OK, code_pb2.INVALID_ARGUMENT, code_pb2.NOT_FOUND,
                                  code_pb2.ALREADY_EXISTS)

# tests/p4/mrc/downlink_ttl_checksum.stf: MRC DATA 10.0.2.1 -> 10.0.1.1 from port 2 leaves
# on port 1 (the /24) with TTL 63 and the checksum fixed; to 10.0.2.7 on port 3 (the /16)
TO_H1 = bytes.fromhex(
    "0000000001010000000002010800" "4502005400014000401123950a0002010a000101"
    "c00012b90040d777" "10001234000000070000001000000000000010000010000000abcdef"
    "000000000000000000000000" "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
TO_H1_OUT = bytes.fromhex(
    "0000000001010000000002010800" "45020054000140003f1124950a0002010a000101"
    "c00012b90040d777" "10001234000000070000001000000000000010000010000000abcdef"
    "000000000000000000000000" "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
TO_H7 = bytes.fromhex(
    "0000000001010000000002010800" "4502002c00014000401122b70a0002010a000207"
    "1388177000187f79" "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
TO_H7_OUT = bytes.fromhex(
    "0000000001010000000002010800" "4502002c000140003f1123b70a0002010a000207"
    "1388177000187f79" "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")


@pytest.fixture(scope="module")
def compiled():
    return compile_file(str(PROGRAM))


class Ids:
    """P4Info ids by name."""

    def __init__(self, p4info) -> None:
        self.tables = {t.preamble.name: t for t in p4info.tables}
        self.actions = {a.preamble.name: a.preamble.id for a in p4info.actions}
        self.action_info = {a.preamble.id: a for a in p4info.actions}
        self.profiles = {p.preamble.name: p.preamble.id for p in p4info.action_profiles}
        self.registers = {r.preamble.name: r for r in p4info.registers}
        self.counters = {c.preamble.name: c for c in p4info.counters}

    def table(self, name: str) -> int:
        return self.tables[f"MrcIngress.{name}"].preamble.id

    def action(self, name: str) -> int:
        return self.actions[name if name == "NoAction" else f"MrcIngress.{name}"]


@pytest.fixture
def switch(compiled):
    core = SwitchCore(device_id=DEVICE_ID, cpu_port=CPU_PORT)
    ports, far = PortSet(), {}
    for number in (1, 2, 3):
        near, far[number] = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        near.setblocking(False)
        far[number].settimeout(3)
        ports.ports[number] = Port(number, f"sp{number}", near)
    tm = NativeTrafficManager(core, ports, QueueSettings(depth=64, priorities=2))
    server, service, port = serve(core, ir_loader(CPU_PORT, "native"), "127.0.0.1:0")
    loop = DataplaneLoop([tm], native=True)
    loop.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = p4runtime_pb2_grpc.P4RuntimeStub(channel)
    req = pb.SetForwardingPipelineConfigRequest(
        device_id=DEVICE_ID, action=pb.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
    req.config.p4info.CopyFrom(compiled.p4info)
    req.config.p4_device_config = compiled.ir
    stub.SetForwardingPipelineConfig(req)
    try:
        assert isinstance(core.program.pipeline, NativePipeline)
        with core.lock:
            assert tm.fast_path() is not None  # frames in C end to end
        yield stub, Ids(compiled.p4info), core, far, tm
    finally:
        channel.close()
        server.stop(grace=0)
        service.stop()
        loop.stop()
        ports.close()
        for sock in far.values():
            sock.close()


# -- messages -------------------------------------------------------------------------------
def upd(op, **entity) -> pb.Update:
    return pb.Update(type=op, entity=pb.Entity(**entity))


def downlink(ids: Ids, prefix: bytes = b"\x0a\x00\x01\x00", plen: int = 24,
             port: bytes = b"\x01", *, action: str = "forward", priority: int = 0,
             field_id: int = 1, kind: str = "lpm", table: str = "downlink") -> pb.TableEntry:
    te = pb.TableEntry(table_id=ids.table(table), priority=priority)
    fm = te.match.add(field_id=field_id)
    if kind == "lpm":
        fm.lpm.value = prefix
        fm.lpm.prefix_len = plen
    elif kind == "exact":
        fm.exact.value = prefix
    else:
        fm.ternary.value = prefix
        fm.ternary.mask = b"\xff" * len(prefix)
    te.action.action.action_id = ids.action(action)
    if action == "forward":
        te.action.action.params.add(param_id=1, value=port)
    return te


def member(ids: Ids, member_id: int, port: bytes = b"\x03",
           action: str = "forward") -> pb.ActionProfileMember:
    m = pb.ActionProfileMember(action_profile_id=ids.profiles["MrcIngress.uplink_selector"],
                               member_id=member_id)
    m.action.action_id = ids.action(action)
    if action == "forward":
        m.action.params.add(param_id=1, value=port)
    return m


def group(ids: Ids, group_id: int, *members: int, weight: int = 1) -> pb.ActionProfileGroup:
    g = pb.ActionProfileGroup(action_profile_id=ids.profiles["MrcIngress.uplink_selector"],
                              group_id=group_id)
    for m in members:
        g.members.add(member_id=m, weight=weight)
    return g


def write(stub, *updates) -> list[int]:
    """Each update's canonical code (all OK when the write succeeds)."""
    req = pb.WriteRequest(device_id=DEVICE_ID, updates=updates)
    try:
        stub.Write(req)
    except grpc.RpcError as err:
        assert err.code() == grpc.StatusCode.UNKNOWN, err
        raw = dict(err.trailing_metadata()).get("grpc-status-details-bin")
        status = status_pb2.Status.FromString(raw or b"")
        if not status.details:  # too many to fit gRPC's metadata: the status alone
            return [code_pb2.UNKNOWN] * len(updates)
        codes = []
        for detail in status.details:
            error = pb.Error()
            assert detail.Unpack(error)
            codes.append(error.canonical_code)
        assert len(codes) == len(updates)  # one p4.Error per update, in order
        return codes
    return [OK] * len(updates)


def read_entries(stub, table_id: int) -> list[pb.TableEntry]:
    req = pb.ReadRequest(device_id=DEVICE_ID,
                         entities=[pb.Entity(table_entry=pb.TableEntry(table_id=table_id))])
    return [e.table_entry for resp in stub.Read(req) for e in resp.entities]


def forwards(far, frame: bytes, in_port: int, out_port: int, expect: bytes) -> None:
    far[in_port].send(frame)
    assert far[out_port].recv(MAX_FRAME) == expect


def routes(stub, ids) -> None:
    assert write(stub, upd(INSERT, table_entry=downlink(ids)),
                 upd(INSERT, table_entry=downlink(ids, b"\x0a\x00\x00\x00", 16, b"\x03"))) \
        == [OK, OK]


# -- the checks -----------------------------------------------------------------------------
def _malformed_table_entries(ids: Ids) -> list[tuple[str, pb.TableEntry, int]]:
    unknown_table = downlink(ids)
    unknown_table.table_id = 0x02FFFFFF
    unknown_action = downlink(ids)
    unknown_action.action.action.action_id = 0x01FFFFFF
    not_this_tables = downlink(ids, action="set_thresholds")
    not_this_tables.action.action.params.add(param_id=1, value=b"\x01")
    not_this_tables.action.action.params.add(param_id=2, value=b"\x01")
    missing_param = downlink(ids)
    del missing_param.action.action.params[:]
    unknown_param = downlink(ids)
    unknown_param.action.action.params.add(param_id=9, value=b"\x01")
    twice_param = downlink(ids)
    twice_param.action.action.params.add(param_id=1, value=b"\x02")
    no_action = downlink(ids)
    no_action.ClearField("action")
    exact_missing = pb.TableEntry(table_id=ids.table("port_thresholds"))
    exact_missing.action.action.action_id = ids.action("set_thresholds")
    exact_missing.action.action.params.add(param_id=1, value=b"\x01")
    exact_missing.action.action.params.add(param_id=2, value=b"\x01")
    threshold_too_wide = downlink(ids, b"\x01", kind="exact", table="port_thresholds",
                                  action="set_thresholds")
    threshold_too_wide.action.action.params.add(param_id=1, value=b"\x08\x00\x00")  # 2^19
    threshold_too_wide.action.action.params.add(param_id=2, value=b"\x01")
    empty_value = downlink(ids, b"", kind="exact", table="port_thresholds",
                           action="set_thresholds")
    empty_value.action.action.params.add(param_id=1, value=b"\x01")
    empty_value.action.action.params.add(param_id=2, value=b"\x01")
    return [
        ("unknown table id", unknown_table, INVALID),
        ("unknown action id", unknown_action, INVALID),
        ("an action outside the table's set", not_this_tables, INVALID),
        ("a missing action parameter", missing_param, INVALID),
        ("an unknown parameter id", unknown_param, INVALID),
        ("a parameter given twice", twice_param, INVALID),
        ("no action", no_action, INVALID),
        ("an unknown match field id", downlink(ids, field_id=7), INVALID),
        ("a match field given twice", _twice_field(downlink(ids)), INVALID),
        ("the wrong match kind (exact on an lpm field)", downlink(ids, kind="exact"), INVALID),
        ("the wrong match kind (ternary on an lpm field)", downlink(ids, kind="ternary"),
         INVALID),
        ("a key wider than bit<32>", downlink(ids, b"\x01\x0a\x00\x01\x00"), INVALID),
        ("a port wider than bit<9>", downlink(ids, port=b"\x02\x00"), INVALID),
        ("a threshold wider than bit<19>", threshold_too_wide, INVALID),
        ("an empty bytestring", empty_value, INVALID),
        ("a prefix longer than the field", downlink(ids, plen=33), INVALID),
        ("bits past the prefix", downlink(ids, b"\x0a\x00\x01\x01"), INVALID),
        ("a /0 prefix (don't care must be omitted)", downlink(ids, b"\x00", 0), INVALID),
        ("a priority on an lpm table", downlink(ids, priority=5), INVALID),
        ("a missing exact field", exact_missing, INVALID),
        ("an action on an indirect table", downlink(ids, table="uplink"), INVALID),
        ("a keyless table's entry", _keyless(ids), INVALID),
    ]


def _twice_field(te: pb.TableEntry) -> pb.TableEntry:
    te.match.add().CopyFrom(te.match[0])
    return te


def _keyless(ids: Ids) -> pb.TableEntry:
    te = pb.TableEntry(table_id=ids.table("spray_config"))
    te.action.action.action_id = ids.action("set_spray_mode")
    te.action.action.params.add(param_id=1, value=b"\x01")
    te.action.action.params.add(param_id=2, value=b"\x07")
    return te


def test_malformed_table_entries_are_refused_per_update_and_forwarding_goes_on(switch):
    stub, ids, core, far, tm = switch
    routes(stub, ids)
    forwards(far, TO_H1, 2, 1, TO_H1_OUT)
    cases = _malformed_table_entries(ids)
    # one batch: every update refused with its own code, in order, and the good update
    # in the middle applied (CONTINUE_ON_ERROR)
    good = downlink(ids, b"\x0a\x00\x02\x00", 24, b"\x02")
    updates = [upd(INSERT, table_entry=te) for _, te, _ in cases]
    updates.insert(len(updates) // 2, upd(INSERT, table_entry=good))
    codes = write(stub, *updates)
    want = [code for _, _, code in cases]
    want.insert(len(want) // 2, OK)
    named = [(name, code_pb2.Code.Name(got)) for (name, _, _), got in
             zip(cases, codes[:len(cases) // 2] + codes[len(cases) // 2 + 1:], strict=True)]
    assert codes == want, named
    # each alone too (a batch of one is the common client's case)
    for name, te, code in cases:
        assert write(stub, upd(INSERT, table_entry=te)) == [code], name
    assert len(read_entries(stub, ids.table("downlink"))) == 3
    # the good entry reached the C tables: 10.0.2.7 now leaves on port 2 (the new /24)
    forwards(far, TO_H7, 2, 2, TO_H7_OUT)
    forwards(far, TO_H1, 2, 1, TO_H1_OUT)


def test_duplicates_absent_entries_and_bad_references(switch):
    stub, ids, core, far, tm = switch
    routes(stub, ids)
    te = downlink(ids)
    assert write(stub, upd(INSERT, table_entry=te)) == [EXISTS]
    assert write(stub, upd(INSERT, table_entry=downlink(ids, action="drop"))) == [EXISTS]
    absent = downlink(ids, b"\x0b\x00\x00\x00", 8)
    assert write(stub, upd(DELETE, table_entry=absent)) == [NOT_FOUND]
    assert write(stub, upd(MODIFY, table_entry=absent)) == [NOT_FOUND]
    # an entry, then its delete, twice in one batch: the second delete finds nothing
    assert write(stub, upd(INSERT, table_entry=absent), upd(DELETE, table_entry=absent),
                 upd(DELETE, table_entry=absent)) == [OK, OK, NOT_FOUND]
    # indirect table: a member or group that was never inserted
    indirect = pb.TableEntry(table_id=ids.table("uplink"))
    fm = indirect.match.add(field_id=1)
    fm.lpm.value, fm.lpm.prefix_len = b"\x0a\x00\x00\x00", 8
    indirect.action.action_profile_member_id = 42
    assert write(stub, upd(INSERT, table_entry=indirect)) == [NOT_FOUND]
    indirect.action.action_profile_group_id = 42
    assert write(stub, upd(INSERT, table_entry=indirect)) == [NOT_FOUND]
    # members and groups
    assert write(stub, upd(INSERT, action_profile_member=member(ids, 1)),
                 upd(INSERT, action_profile_member=member(ids, 1)),
                 upd(INSERT, action_profile_member=member(ids, 2, action="drop")),
                 upd(MODIFY, action_profile_member=member(ids, 9)),
                 upd(DELETE, action_profile_member=member(ids, 9)),
                 upd(INSERT, action_profile_member=member(ids, 3, port=b"\x02\x00"))) == \
        [OK, EXISTS, INVALID, NOT_FOUND, NOT_FOUND, INVALID]
    assert write(stub, upd(INSERT, action_profile_group=group(ids, 1, 1, 77))) == [NOT_FOUND]
    assert write(stub, upd(INSERT, action_profile_group=group(ids, 1, 1, weight=0))) == \
        [INVALID]
    assert write(stub, upd(MODIFY, action_profile_group=group(ids, 5, 1))) == [NOT_FOUND]
    assert write(stub, upd(DELETE, action_profile_group=group(ids, 5))) == [NOT_FOUND]
    assert write(stub, upd(INSERT, action_profile_group=group(ids, 1, 1))) == [OK]
    assert write(stub, upd(INSERT, action_profile_group=group(ids, 1, 1))) == [EXISTS]
    indirect.action.action_profile_group_id = 1
    assert write(stub, upd(INSERT, table_entry=indirect)) == [OK]
    # in use: a member in a group, a group in an entry (spec: FAILED_PRECONDITION)
    assert write(stub, upd(DELETE, action_profile_member=member(ids, 1))) == \
        [code_pb2.FAILED_PRECONDITION]
    assert write(stub, upd(DELETE, action_profile_group=group(ids, 1))) == \
        [code_pb2.FAILED_PRECONDITION]
    # a member of weight 2^31-1 (no @max_group_size on mrc.p4's selector): taken, and
    # the compiled tables select without a slot per unit of weight
    assert write(stub, upd(INSERT, action_profile_member=member(ids, 2, port=b"\x03")),
                 upd(MODIFY, action_profile_group=group(ids, 1, 1, 2, weight=2**31 - 1))) \
        == [OK, OK]
    # 10.1.3.9: no downlink route, so the uplink group (both members to port 3)
    to_uplink = bytearray(TO_H7)
    to_uplink[30:34] = bytes([10, 1, 3, 9])
    far[2].send(bytes(to_uplink))
    out = far[3].recv(MAX_FRAME)
    assert out[30:34] == bytes([10, 1, 3, 9]) and out[22] == 63
    forwards(far, TO_H1, 2, 1, TO_H1_OUT)


def _register(ids: Ids, index: int, data: bytes = b"\x01") -> pb.RegisterEntry:
    reg = ids.registers["queue_depth_est"]
    entry = pb.RegisterEntry(register_id=reg.preamble.id)
    entry.index.index = index
    entry.data.bitstring = data
    return entry


def _counter(ids: Ids, index: int) -> pb.CounterEntry:
    counter = ids.counters["MrcEgress.tx_packets"]
    c = pb.CounterEntry(counter_id=counter.preamble.id)
    c.index.index = index
    c.data.packet_count = 1
    return c


def test_bad_ids_indexes_and_update_types(switch):
    stub, ids, core, far, tm = switch
    routes(stub, ids)
    # a value wider than the register's bit<W>, an unknown register
    assert write(stub, upd(MODIFY, register_entry=_register(ids, 3, b"\x01" + bytes(8)))) == \
        [INVALID]
    unknown = _register(ids, 0)
    unknown.register_id = 0x16FFFFFF
    assert write(stub, upd(MODIFY, register_entry=unknown)) == [INVALID]
    # an index past the array: refused (the spec's code is the test below)
    size = ids.registers["queue_depth_est"].size
    assert write(stub, upd(MODIFY, register_entry=_register(ids, size))) != [OK]
    assert write(stub, upd(MODIFY, counter_entry=_counter(ids, 10_000))) != [OK]
    assert write(stub, upd(INSERT, counter_entry=_counter(ids, 1))) == [INVALID]  # MODIFY only
    mc = pb.PacketReplicationEngineEntry(
        multicast_group_entry=pb.MulticastGroupEntry(multicast_group_id=0))
    mc.multicast_group_entry.replicas.add(instance=1, egress_port=1)
    assert write(stub, upd(INSERT, packet_replication_engine_entry=mc)) == [INVALID]
    mc.multicast_group_entry.multicast_group_id = 5
    assert write(stub, upd(DELETE, packet_replication_engine_entry=mc)) == [NOT_FOUND]
    assert write(stub, pb.Update(type=pb.Update.UNSPECIFIED,
                                 entity=pb.Entity(table_entry=downlink(ids)))) == [INVALID]
    assert write(stub, pb.Update(type=INSERT)) == [INVALID]  # no entity
    # the register and counters the data plane uses are untouched and it forwards
    forwards(far, TO_H1, 2, 1, TO_H1_OUT)


def test_indexes_past_the_array_are_out_of_range(switch):
    """The spec's RegisterEntry and CounterEntry sections: OUT_OF_RANGE."""
    stub, ids, core, far, tm = switch
    size = ids.registers["queue_depth_est"].size
    assert write(stub, upd(MODIFY, register_entry=_register(ids, size)),
                 upd(MODIFY, counter_entry=_counter(ids, 10_000))) == \
        [code_pb2.OUT_OF_RANGE, code_pb2.OUT_OF_RANGE]


def test_an_oversized_batch_fills_the_table_and_the_rest_is_resource_exhausted(switch):
    stub, ids, core, far, tm = switch
    routes(stub, ids)
    size = ids.tables["MrcIngress.downlink"].size
    # /32 routes in 11.x.y.z: the two routes above plus `size` more overflow by two
    updates = [upd(INSERT, table_entry=downlink(ids, bytes([11, 0, i >> 8, i & 0xFF]), 32))
               for i in range(size)]
    codes = write(stub, *updates)
    # 4,096 errors do not fit gRPC's metadata: the server sends the status without them
    assert codes == [code_pb2.UNKNOWN] * size or codes.count(code_pb2.RESOURCE_EXHAUSTED) == 2
    assert len(read_entries(stub, ids.table("downlink"))) == size
    assert write(stub, upd(INSERT, table_entry=downlink(ids, b"\x0c\x00\x00\x00", 8))) == \
        [code_pb2.RESOURCE_EXHAUSTED]
    # the full table is in C: both old routes and a new /32 forward
    forwards(far, TO_H1, 2, 1, TO_H1_OUT)
    forwards(far, TO_H7, 2, 3, TO_H7_OUT)
    to_11 = bytearray(TO_H7)
    to_11[30:34] = bytes([11, 0, 0x0F, 0xFD])  # one of the /32s: port 1
    far[2].send(bytes(to_11))
    assert far[1].recv(MAX_FRAME)[30:34] == bytes([11, 0, 0x0F, 0xFD])
    assert write(stub, upd(DELETE, table_entry=downlink(ids))) == [OK]
    far[2].send(TO_H1)  # 10.0.1.1 now takes the /16 to port 3
    assert far[3].recv(MAX_FRAME)[30:34] == bytes([10, 0, 1, 1])


# -- random writes ---------------------------------------------------------------------------
SPEC_CODES = {code_pb2.OK, code_pb2.INVALID_ARGUMENT, code_pb2.NOT_FOUND,
              code_pb2.ALREADY_EXISTS, code_pb2.RESOURCE_EXHAUSTED, code_pb2.FAILED_PRECONDITION,
              code_pb2.OUT_OF_RANGE, code_pb2.PERMISSION_DENIED, code_pb2.UNIMPLEMENTED}


def _bytes(rng: random.Random, bits: int) -> bytes:
    """A value for a bit<bits> field: canonical, padded, too wide, empty or random."""
    n = (bits + 7) // 8
    r = rng.random()
    if r < 0.55:
        v = rng.choice((0, 1, (1 << bits) - 1, rng.getrandbits(bits)))
        return v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")
    if r < 0.7:
        return rng.getrandbits(bits).to_bytes(n + rng.randrange(3), "big")
    if r < 0.85:
        return (1 << bits | rng.getrandbits(bits)).to_bytes(n + 1, "big")  # too wide
    if r < 0.9:
        return b""
    return rng.randbytes(rng.randrange(1, 9))


def _random_action(rng, ids: Ids, refs) -> pb.Action:
    action_id = rng.choice(refs) if refs and rng.random() < 0.85 else rng.choice(
        [*ids.action_info, rng.getrandbits(32)])
    a = pb.Action(action_id=action_id)
    info = ids.action_info.get(action_id)
    for param in info.params if info is not None else ():
        if rng.random() < 0.92:
            a.params.add(param_id=param.id if rng.random() < 0.95 else rng.randrange(9),
                         value=_bytes(rng, param.bitwidth))
    return a


def _random_table_entry(rng, ids: Ids) -> pb.TableEntry:
    t = rng.choice(list(ids.tables.values()))
    te = pb.TableEntry(table_id=t.preamble.id if rng.random() < 0.95 else rng.getrandbits(32),
                       priority=rng.choice((0, 0, 0, 1, 7, 2**31 - 1, -1)))
    for mf in t.match_fields:
        if rng.random() < 0.08:
            continue
        fm = te.match.add(field_id=mf.id if rng.random() < 0.95 else rng.randrange(2, 9))
        kind = mf.match_type if rng.random() < 0.85 else rng.randrange(2, 7)
        if kind == 2:
            fm.exact.value = _bytes(rng, mf.bitwidth)
        elif kind == 3:
            fm.lpm.value = _bytes(rng, mf.bitwidth)
            fm.lpm.prefix_len = rng.choice((0, 1, 8, 24, mf.bitwidth, mf.bitwidth + 1))
        elif kind == 4:
            fm.ternary.value = _bytes(rng, mf.bitwidth)
            fm.ternary.mask = _bytes(rng, mf.bitwidth)
        elif kind == 5:
            fm.range.low = _bytes(rng, mf.bitwidth)
            fm.range.high = _bytes(rng, mf.bitwidth)
        else:
            fm.optional.value = _bytes(rng, mf.bitwidth)
    refs = [r.id for r in t.action_refs]
    r = rng.random()
    if r < 0.7:
        te.action.action.CopyFrom(_random_action(rng, ids, refs))
    elif r < 0.8:
        te.action.action_profile_member_id = rng.randrange(6)
    elif r < 0.9:
        te.action.action_profile_group_id = rng.randrange(6)
    if rng.random() < 0.08:
        te.is_default_action = True
        if rng.random() < 0.5:
            del te.match[:]
            te.priority = 0
    return te


def _random_update(rng, ids: Ids) -> pb.Update:
    op = rng.choice((INSERT,) * 6 + (MODIFY, MODIFY, DELETE, DELETE, 0, 9))
    profile = ids.profiles["MrcIngress.uplink_selector"]
    kind = rng.choice(["table"] * 8 + ["member", "member", "group", "group", "register",
                                       "counter", "mcast"])
    if kind == "table":
        return upd(op, table_entry=_random_table_entry(rng, ids))
    if kind == "member":
        m = pb.ActionProfileMember(
            action_profile_id=profile if rng.random() < 0.95 else rng.getrandbits(32),
            member_id=rng.randrange(6))
        if rng.random() < 0.9:
            m.action.CopyFrom(_random_action(
                rng, ids, [r.id for r in ids.tables["MrcIngress.uplink"].action_refs]))
        return upd(op, action_profile_member=m)
    if kind == "group":
        g = pb.ActionProfileGroup(action_profile_id=profile, group_id=rng.randrange(6),
                                  max_size=rng.choice((0, 0, 1, 4, -1)))
        for _ in range(rng.randrange(4)):
            gm = g.members.add(member_id=rng.randrange(6),
                               weight=rng.choice((1, 1, 2, 0, -3, 2**31 - 1)))
            if rng.random() < 0.3:
                gm.watch_port = _bytes(rng, 9)
        return upd(op, action_profile_group=g)
    if kind == "register":
        reg = ids.registers["queue_depth_est"]
        e = pb.RegisterEntry(register_id=reg.preamble.id)
        if rng.random() < 0.9:
            e.index.index = rng.choice((0, 5, reg.size - 1, reg.size, 2**40, -1))
        e.data.bitstring = _bytes(rng, reg.type_spec.bitstring.bit.bitwidth or 32)
        return upd(MODIFY if rng.random() < 0.9 else op, register_entry=e)
    if kind == "counter":
        c = _counter(ids, rng.choice((0, 1, 511, 512, 10**9)))
        return upd(MODIFY if rng.random() < 0.9 else op, counter_entry=c)
    mc = pb.MulticastGroupEntry(multicast_group_id=rng.choice((0, 1, 2, 32767, 32768, 2**32 - 1)))
    for _ in range(rng.randrange(4)):
        mc.replicas.add(instance=rng.choice((0, 1, 2**32 - 1)),
                        port=_bytes(rng, 9) if rng.random() < 0.8 else b"")
    return upd(op, packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=mc))


def _read_all(stub, entity: pb.Entity) -> list[pb.Entity]:
    req = pb.ReadRequest(device_id=DEVICE_ID, entities=[entity])
    return [e for resp in stub.Read(req) for e in resp.entities]


def _clear(stub) -> None:
    """Every entry, group, member and multicast group the writes left, deleted; every
    default entry back to the program's."""
    deletes = [upd(DELETE, table_entry=e.table_entry)
               for e in _read_all(stub, pb.Entity(table_entry=pb.TableEntry()))]
    deletes += [upd(DELETE, action_profile_group=e.action_profile_group)
                for e in _read_all(stub, pb.Entity(action_profile_group=pb.ActionProfileGroup()))]
    deletes += [upd(DELETE, action_profile_member=e.action_profile_member) for e in
                _read_all(stub, pb.Entity(action_profile_member=pb.ActionProfileMember()))]
    mc = pb.Entity(packet_replication_engine_entry=pb.PacketReplicationEngineEntry(
        multicast_group_entry=pb.MulticastGroupEntry()))
    deletes += [upd(DELETE, packet_replication_engine_entry=e.packet_replication_engine_entry)
                for e in _read_all(stub, mc)]
    for at in range(0, len(deletes), 50):
        assert set(write(stub, *deletes[at:at + 50])) == {OK}
    t = pb.TableEntry(is_default_action=True)
    for e in _read_all(stub, pb.Entity(table_entry=t)):
        reset = pb.TableEntry(table_id=e.table_entry.table_id, is_default_action=True)
        assert write(stub, upd(MODIFY, table_entry=reset)) == [OK]


def _drain(far) -> int:
    got = 0
    for sock in far.values():
        sock.setblocking(False)
        try:
            while True:
                sock.recv(MAX_FRAME)
                got += 1
        except BlockingIOError:
            pass
        finally:
            sock.settimeout(3)
    return got


def test_random_writes_get_spec_codes_while_frames_flow_and_forwarding_recovers(switch):
    """1,200 random updates (real and bogus ids, widths, kinds, ops, weights, watch
    ports, indexes) in batches of 20, a burst of frames after each batch: every update
    gets a P4Runtime code (never INTERNAL or UNKNOWN), the data plane raises nothing, and
    once the state is cleared and the routes written again, frames forward exactly."""
    stub, ids, core, far, tm = switch
    rng = random.Random(57)
    seen: dict[int, int] = {}
    frames = [TO_H1, TO_H7, TO_H1[:40], TO_H7[:20], bytes(64)]
    for _ in range(60):
        codes = write(stub, *[_random_update(rng, ids) for _ in range(20)])
        for c in codes:
            seen[c] = seen.get(c, 0) + 1
        for frame in rng.sample(frames, 3):
            far[rng.choice((1, 2, 3))].send(frame)
        _drain(far)
    named = {code_pb2.Code.Name(c): n for c, n in seen.items()}
    assert set(seen) <= SPEC_CODES, named
    assert seen.get(OK, 0) > 50 and seen.get(INVALID, 0) > 100, named
    time.sleep(0.2)
    _drain(far)
    assert tm.pipeline_errors == 0, tm.last_pipeline_error
    _clear(stub)
    assert read_entries(stub, 0) == []
    routes(stub, ids)
    forwards(far, TO_H1, 2, 1, TO_H1_OUT)
    forwards(far, TO_H7, 2, 3, TO_H7_OUT)
