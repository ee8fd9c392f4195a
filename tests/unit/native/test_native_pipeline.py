"""p4emu.native's pipeline on mrclab/p4src/mrc.p4 beside the Python one (twins: one DeviceState
each, the same set-up, the same packets): what the STF suite cannot show. Control-plane
changes after the pipeline is built, action-selector groups with watch ports going down,
random() draws, registers and counters shared with P4Runtime-style reads and writes, the
ingress/egress interface the traffic manager uses, multicast copies of the probe group,
several switches in one process, the build cache and the refusal of programs outside the
subset."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.native import NativeUnsupported, load_native
from p4emu.native import build as native_build
from p4emu.native.pipeline import NativePipeline
from p4emu.runtime.action_profiles import GroupMember
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.device import DeviceState
from p4emu.runtime.match import Exact, Lpm
from p4emu.runtime.port_states import PortStates
from p4emu.runtime.tables import TableEntry
from p4emu.v1model.pipeline import Pipeline

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "scripts" / "bench_mrc.stf"
UPLINKS = (11, 12, 13, 14)


@pytest.fixture(scope="module")
def program():
    return load_ir(compile_file(str(ROOT / "mrclab" / "p4src" / "mrc.p4")).ir)


def mrc_packets() -> list[bytes]:
    """The bench's MRC DATA packets (to 10.0.3.4, an uplink destination)."""
    return [bytes.fromhex(line.split()[2]) for line in BENCH.read_text().splitlines()
            if line.startswith("packet ")]


def with_src_port(frame: bytes, port: int) -> bytes:
    return frame[:34] + port.to_bytes(2, "big") + frame[36:]


class Twins:
    """A Python and a native pipeline of mrc.p4 with equal state. Watch ports' liveness:
    a callable over `up` (the compiled side calls it), or with `bitmap` a `PortStates` per
    side (the compiled side reads its bitmap)."""

    def __init__(self, program, seed: int = 7, bitmap: bool = False):
        self.up = {p: True for p in UPLINKS}
        self.port_states: list[PortStates] = []
        self.sides = []
        for make in (Pipeline, NativePipeline):
            port_up = lambda p: self.up.get(p, True)  # noqa: E731
            if bitmap:
                port_up = PortStates()
                self.port_states.append(port_up)
            state = DeviceState.from_program(program.info, port_up=port_up,
                                             clock_us=lambda: 0, rng=random.Random(seed))
            self.sides.append((state, make(program, state)))

    def set_port(self, port: int, up: bool) -> None:
        self.up[port] = up
        for states in self.port_states:
            states.set_up(port, up)

    def each(self, fn) -> None:
        for state, _ in self.sides:
            fn(state)

    def process(self, port: int, data: bytes, now: int = 0) -> list:
        (_, py), (_, nat) = self.sides
        a, b = py.process(port, data, now), nat.process(port, data, now)
        assert b == a
        return a


def set_up(state: DeviceState, mode: int = 0, watch: bool = True) -> None:
    fwd = state.resolve_action("MrcIngress.forward").id
    spray = state.resolve_table("MrcIngress.spray_config")
    spray.set_default(ActionCall(state.resolve_action("MrcIngress.set_spray_mode").id, (mode, 0)))
    prof = state.action_profiles["MrcIngress.uplink_selector"]
    for i, port in enumerate(UPLINKS):
        prof.insert_member(100 + i, ActionCall(fwd, (port,)))
    prof.insert_group(1, [GroupMember(100 + i, 1, port if watch else None)
                          for i, port in enumerate(UPLINKS)])
    state.resolve_table("MrcIngress.uplink").insert(
        TableEntry((Lpm(0x0A000000, 8),), group_id=1))


@pytest.mark.parametrize("bitmap", [False, True], ids=["callable", "bitmap"])
def test_selector_with_watch_ports_matches_python(program, bitmap):
    t = Twins(program, bitmap=bitmap)
    t.each(set_up)
    frames = [with_src_port(mrc_packets()[0], 1000 + k) for k in range(200)]
    seen = {p for f in frames for p, _ in t.process(2, f)}
    assert seen == set(UPLINKS)  # every member is chosen by some flow
    t.set_port(12, False)  # a watch port goes down: its member leaves the selection
    seen = {p for f in frames for p, _ in t.process(2, f)}
    assert seen == set(UPLINKS) - {12}
    t.set_port(12, True)
    for port in (11, 13, 14):
        t.set_port(port, False)
    assert {p for f in frames for p, _ in t.process(2, f)} == {12}
    t.set_port(12, False)  # all down: both sides select nothing alike (process compares)
    for f in frames[:5]:
        t.process(2, f)


def test_watch_ports_beyond_the_bitmap_are_asked_of_port_states(program):
    """P4Runtime's ports are 32-bit; a watch port past v1model's 9 bits is not in the
    bitmap, and the compiled side asks the PortStates for it."""
    t = Twins(program, bitmap=True)
    for state, _ in t.sides:
        set_up(state)
        members = [GroupMember(100 + i, 1, 70_000 + port) for i, port in enumerate(UPLINKS)]
        state.action_profiles["MrcIngress.uplink_selector"].modify_group(1, members)
    frames = [with_src_port(mrc_packets()[0], 1000 + k) for k in range(200)]
    t.set_port(70_012, False)
    assert {p for f in frames for p, _ in t.process(2, f)} == set(UPLINKS) - {12}
    t.set_port(70_012, True)
    assert {p for f in frames for p, _ in t.process(2, f)} == set(UPLINKS)


def test_random_spraying_draws_like_python(program):
    t = Twins(program, seed=3)
    t.each(lambda s: set_up(s, mode=2, watch=False))
    ports = [t.process(2, mrc_packets()[0])[0][0] for _ in range(100)]
    assert len(set(ports)) == len(UPLINKS)


def test_control_plane_changes_reach_the_c_copy(program):
    t = Twins(program)
    t.each(set_up)
    frame = mrc_packets()[0]
    dst = int.from_bytes(frame[30:34], "big")
    fwd = t.sides[0][0].resolve_action("MrcIngress.forward").id
    entry = lambda: TableEntry((Lpm(dst, 32),), action=ActionCall(fwd, (7,)))  # noqa: E731
    t.each(lambda s: s.resolve_table("MrcIngress.downlink").insert(entry()))
    assert [p for p, _ in t.process(2, frame)] == [7]
    t.each(lambda s: s.resolve_table("MrcIngress.downlink").delete(entry()))
    assert t.process(2, frame)[0][0] in UPLINKS
    t.each(lambda s: s.action_profiles["MrcIngress.uplink_selector"].modify_member(
        100, ActionCall(fwd, (21,))))
    t.each(lambda s: s.action_profiles["MrcIngress.uplink_selector"].modify_group(
        1, [GroupMember(100, 1, None)]))
    assert [p for p, _ in t.process(2, frame)] == [21]


def test_registers_and_counters_are_shared_with_the_control_plane(program):
    t = Twins(program)
    t.each(set_up)
    thresholds = lambda s: s.resolve_table("MrcIngress.port_thresholds").insert(  # noqa: E731
        TableEntry((Exact(11),), action=ActionCall(
            s.resolve_action("MrcIngress.set_thresholds").id, (5, 1000))))
    t.each(thresholds)
    t.each(lambda s: s.action_profiles["MrcIngress.uplink_selector"].modify_group(
        1, [GroupMember(100, 1, None)]))  # everything to port 11
    frame = mrc_packets()[0]
    jobs = [pipe.ingress(2, frame, 0) for _, pipe in t.sides]
    for state, _ in t.sides:  # what ingress wrote, read as P4Runtime reads it
        assert state.registers["queue_depth_est"].get(11) == 1  # admitted: depth + 1
    outs = [pipe.egress(job, now_us=1) for (_, pipe), (job,) in zip(t.sides, jobs, strict=True)]
    assert outs[1] == outs[0]
    full = len(outs[0][0][1])
    for state, _ in t.sides:
        assert state.registers["queue_depth_est"].get(11) == 0  # egress took it off
        assert state.counters["MrcEgress.tx_packets"].read(11).packets == 1
    t.each(lambda s: s.registers["queue_depth_est"].set(11, 9))  # a control-plane write
    trimmed = t.process(2, frame)[0][1]
    assert len(trimmed) < full  # depth estimate 9 >= threshold 5: trimmed
    t.each(lambda s: s.counters["MrcEgress.tx_packets"].reset())
    t.each(lambda s: s.counters["MrcEgress.trimmed"].write(11, 40, 4000))
    t.process(2, frame)
    for state, _ in t.sides:
        assert state.counters["MrcEgress.tx_packets"].read(11).packets == 1
        assert state.counters["MrcEgress.trimmed"].read(11).packets == 41
        assert state.registers["queue_depth_est"].get(11) == 9  # trimmed: not in the data queue


def ecn_at_3_on_port_13(state) -> None:
    """Port 13 marks above 3 packets (trims above 100): queue depths the tests set reach it."""
    state.resolve_table("MrcIngress.port_thresholds").insert(TableEntry(
        (Exact(13),), action=ActionCall(state.resolve_action("MrcIngress.set_thresholds").id,
                                        (100, 3))))


def test_ingress_and_egress_as_the_traffic_manager_calls_them(program):
    t = Twins(program)
    t.each(set_up)
    t.each(ecn_at_3_on_port_13)
    frames = [with_src_port(mrc_packets()[0], 1000 + k) for k in range(40)]
    for k, frame in enumerate(frames):
        (py_job,) = t.sides[0][1].ingress(2, frame, k)
        (nat_job,) = t.sides[1][1].ingress(2, frame, k)
        assert (nat_job.port, nat_job.priority, nat_job.length) == (
            py_job.port, py_job.priority, py_job.length)
        depth = k % 6  # marks ECN from depth 3 on port 13, raises qmax
        kw = dict(enq_timestamp=5 * k, enq_qdepth=depth, deq_timedelta=k, deq_qdepth=depth,
                  now_us=k + 10)
        assert t.sides[1][1].egress(nat_job, **kw) == t.sides[0][1].egress(py_job, **kw)


def test_a_probe_to_the_probe_group_is_copied_to_each_port_as_in_python(program):
    """A PacketOut with probe_group set goes to multicast group 1 (PROBE_GROUP): one job
    per copy, in the replication engine's order (by node, a node's ports ascending), each
    leaving its own port unchanged; a later change of the group reaches the next packet,
    and a missing group copies nothing."""
    t = Twins(program)
    t.each(lambda state: state.pre.insert_group(1, [(0, 3), (0, 1), (7, 4)]))
    probe = bytes.fromhex("0180c200000e02000000000788b5000000070001e240000100030000002a")
    packet_out = bytes.fromhex("0040") + probe  # egress_port 0, probe_group 1
    jobs = [pipe.ingress(255, packet_out, 5) for _, pipe in t.sides]
    assert [[j.port for j in side] for side in jobs] == [[1, 3, 4], [1, 3, 4]]
    for py_job, nat_job in zip(*jobs, strict=True):
        assert (nat_job.priority, nat_job.length) == (py_job.priority, py_job.length) \
            == (1, len(packet_out))
        outs = [pipe.egress(job, now_us=6) for (_, pipe), job in zip(t.sides, (py_job, nat_job),
                                                                      strict=True)]
        assert outs[1] == outs[0] == [(py_job.port, probe)]
    assert t.process(255, packet_out) == [(1, probe), (3, probe), (4, probe)]
    t.each(lambda state: state.pre.modify_group(1, [(0, 2)]))
    assert t.process(255, packet_out) == [(2, probe)]
    t.each(lambda state: state.pre.delete_group(1))
    assert t.process(255, packet_out) == []
    assert [pipe.ingress(255, packet_out, 7) for _, pipe in t.sides] == [[], []]


def test_switches_of_one_program_keep_their_own_state(program):
    a = NativePipeline(program, DeviceState.from_program(program.info, clock_us=lambda: 0))
    b = NativePipeline(program, DeviceState.from_program(program.info, clock_us=lambda: 0))
    assert a.native is b.native  # one shared object per program
    fwd = a.state.resolve_action("MrcIngress.forward").id
    frame = mrc_packets()[0]
    dst = int.from_bytes(frame[30:34], "big")
    a.state.resolve_table("MrcIngress.downlink").insert(
        TableEntry((Lpm(dst, 32),), action=ActionCall(fwd, (5,))))
    assert [p for p, _ in a.process(2, frame)] == [5]
    assert b.process(2, frame) == []  # b's downlink is empty: its default drops
    assert a.state.counters["MrcEgress.tx_packets"].read(5).packets == 1
    assert b.state.counters["MrcEgress.tx_packets"].read(5).packets == 0


def test_a_second_load_reuses_the_cached_build(program, monkeypatch):
    load_native(program)  # built (or found) once
    again = load_ir(compile_file(str(ROOT / "mrclab" / "p4src" / "mrc.p4")).ir)  # a new CompiledProgram

    def no_compiler(*args):
        raise AssertionError("rebuilt")
    monkeypatch.setattr(native_build, "_compile", no_compiler)
    monkeypatch.setattr(native_build, "_LOADED", {})  # not even imported yet this process
    assert load_native(again).module.__name__.startswith("p4n_")
    assert any(native_build.cache_dir().glob("p4n_*.so"))


def test_a_program_outside_the_subset_is_refused_with_its_reason(tmp_path):
    src = (ROOT / "tests" / "p4" / "clone.p4")
    compiled = load_ir(compile_file(str(src)).ir)
    with pytest.raises(NativeUnsupported) as info:
        load_native(compiled)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("outside the native subset: the extern function clone")
    with pytest.raises(NativeUnsupported):  # remembered, not generated again
        load_native(compiled)


def test_entry_hit_counters_come_back_to_python(program):
    t = Twins(program)
    t.each(set_up)
    frames = [with_src_port(mrc_packets()[0], 1000 + k) for k in range(30)]
    for f in frames:
        t.process(2, f)
    t.sides[1][1].sync()  # C's per-entry hits, added to the entries' counters
    (py_state, _), (nat_state, _) = t.sides
    py = [(e.counter.packets, e.counter.bytes)
          for e in py_state.resolve_table("MrcIngress.uplink").entries()]
    nat = [(e.counter.packets, e.counter.bytes)
           for e in nat_state.resolve_table("MrcIngress.uplink").entries()]
    assert nat == py == [(30, 30 * len(frames[0]))]
    # a change to one table reloads that table only (the others keep their hits)
    t.each(lambda s: s.resolve_table("MrcIngress.downlink").clear())
    t.process(2, frames[0])
    t.sides[1][1].sync()
    nat = [e.counter.packets for e in nat_state.resolve_table("MrcIngress.uplink").entries()]
    assert nat == [31]


def test_process_tells_on_enqueue_and_uses_queue_depth(program):
    t = Twins(program)
    t.each(set_up)
    t.each(ecn_at_3_on_port_13)
    queued: list[list] = [[], []]
    for (_, pipe), seen in zip(t.sides, queued, strict=True):
        pipe.on_enqueue = lambda job, seen=seen: seen.append((job.port, job.priority))
        pipe.queue_depth = 4  # ECN marks on port 13 (threshold 3)
        pipe.priority_queues = 1  # priority 1 (ACKs, trimmed) is dropped
    for k in range(40):
        t.process(2, with_src_port(mrc_packets()[0], 1000 + k), k)
    assert queued[1] == queued[0] and len(queued[0]) == 40
