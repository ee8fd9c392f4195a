"""FabricController logic against fake switch sessions (no gRPC, no Mininet)."""

from __future__ import annotations

import time

import pytest

from mrclab.controller.fabric import FabricController
from mrclab.controller.next_hops import link_id
from mrclab.controller.p4rt_codec import Codec, P4Ids
from mrclab.controller.probe_liveness import LinkEvent, LinkStatus, parse_probe
from mrclab.controller.switch_state import PROBE_GROUP, ForwardingPolicy, ip_to_int
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.spray import SPRAY_MODES
from mrclab.fabric.topology_file import TopologyFile
from tests.unit.controller.fake_switch import FakeSession


def _controller(p4info, spec="fattree:k=4", **kwargs):
    # Tests that fail links do it by hand; slow probes keep a loaded machine (a starved
    # probe thread) from failing links of its own in the middle of a test.
    kwargs.setdefault("probe_interval", 0.5)
    kwargs.setdefault("miss_limit", 10)
    topo = TopologyFile(fabric=parse_spec(spec), target="p4emu")
    ctl = FabricController(topo, p4info, b"device-config", ForwardingPolicy(), election_id=1,
                           session_factory=FakeSession, **kwargs)
    return ctl


def _wait(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def _read_state(ctl, name):
    codec = Codec(P4Ids(ctl.p4info))
    session = ctl.sessions[name]
    return codec.parse_state(session.read(codec.read_request_entities()))


@pytest.fixture
def running(p4info):
    ctl = _controller(p4info)
    ctl.start()
    assert _wait(ctl.ready.is_set)
    yield ctl
    ctl.stop()


def test_bring_up_programs_every_switch(running):
    ctl = running
    assert ctl.missing == []
    for name in ctl.fabric.switches:
        session = ctl.sessions[name]
        assert session.pipeline_pushes == 1
        assert _read_state(ctl, name) == ctl.desired_state(name)
    e1 = _read_state(ctl, "e1")
    assert len(e1.downlink) == 2 and len(e1.uplink) == 14
    assert ctl.status().entries == sum(ctl.desired_state(n).entry_count()
                                          for n in ctl.fabric.switches)


def test_restarted_controller_writes_nothing(p4info, running):
    first = running
    second = _controller(p4info)
    for name, session in second.sessions.items():  # the same switches, still programmed
        session.store = first.sessions[name].store
        session.cookie = first.sessions[name].cookie
    second.start()
    assert _wait(second.ready.is_set)
    for session in second.sessions.values():
        assert session.pipeline_pushes == 0
        assert session.writes == []
    second.stop()


def test_restarted_switch_gets_pipeline_and_state_back(running):
    ctl = running
    session = ctl.sessions["a3"]
    session.cookie = None
    session.store.clear()  # the new process is empty
    session.on_lost(session)
    assert not ctl.synced["a3"]
    session.start()
    assert ctl.synced["a3"]
    assert session.pipeline_pushes == 2
    assert _read_state(ctl, "a3") == ctl.desired_state("a3")


def test_link_failure_rewrites_only_affected_switches(running):
    ctl = running
    for session in ctl.sessions.values():
        session.writes.clear()
    dead = link_id(ctl.fabric.find_link("c1", "a7"))
    with ctl._core_lock:
        ctl.core.monitor._links[dead].verdict.went_down()
    now = time.monotonic()
    ctl._apply_link_event(LinkEvent(dead, LinkStatus.DOWN, now, now - 0.3))
    rewritten = {n for n, s in ctl.sessions.items() if s.writes}
    assert {"a1", "a3", "a5", "a7", "c1"} <= rewritten  # remote aggs drop c1 for pod 3
    assert "e1" not in rewritten and "c2" not in rewritten
    a1 = _read_state(ctl, "a1")
    assert a1.downlink[(ip_to_int("10.0.3.4"), 32)] == 4  # only c2 is left
    record = ctl.core.reconvergences[-1]
    assert record.status == "down" and record.total_s >= 0.3
    assert record.switches == len(rewritten)
    # reported on the wall clock: the verdict, then the rewrite, which ends the total
    assert record.detected_at <= record.programmed_at <= time.time()
    assert time.time() - record.detected_at < 5
    assert record.total_s == pytest.approx(record.detect_s + record.program_s, abs=1e-6)
    assert record.joins("a7", "c1") and not record.joins("a7", "c2")
    for name in ctl.fabric.switches:
        assert _read_state(ctl, name) == ctl.desired_state(name)
    paths = ctl.paths("h1", "h16")
    assert len(paths) == 3


def test_spray_mode_change_writes_one_update_per_switch(running):
    ctl = running
    for session in ctl.sessions.values():
        session.writes.clear()
    assert ctl.set_spray_mode(SPRAY_MODES["random"]) == len(ctl.fabric.switches)
    assert _read_state(ctl, "c4").spray_mode == SPRAY_MODES["random"]
    # the live change keeps each switch's own hash salt (its device id) in the entry
    salts = {name: _read_state(ctl, name).spray_salt for name in ctl.fabric.switches}
    assert salts == {name: sw.device_id for name, sw in ctl.fabric.switches.items()}


def _answer(ctl, sender, port, payload):
    """Deliver `payload`, sent out of `sender`'s `port`, as the far end's PacketIn; the
    link it probed."""
    peer = ctl.fabric.switches[sender].ports[port]
    ctl._on_packet_in(ctl.sessions[peer.node], payload, {1: bytes([peer.port])})
    return link_id(ctl.fabric.find_link(sender, peer.node)), peer


def test_one_probe_a_round_per_switch_for_its_probe_group(running):
    """mrc.p4 replicates a PacketOut to the switch's probe group: a1 gets one a round, to
    the group of the ports it probes, and each copy answers for its own link."""
    ctl = running
    a1 = ctl.fabric.switches["a1"]
    probed = {port for (sw, port), _ in ctl.core.monitor.links if sw == "a1"}
    assert len(probed) == 4  # a1 probes its 2 core links and its 2 edge links
    assert _read_state(ctl, "a1").multicast == {PROBE_GROUP: frozenset(probed)}
    assert _wait(lambda: len(ctl.sessions["a1"].packets_out) >= 2)
    rounds = len(ctl.sessions["a1"].packets_out)
    payload, metadata = ctl.sessions["a1"].packets_out[-1]
    assert metadata == {1: b"\x00", 2: b"\x01", 3: b"\x00"}  # egress_port, probe_group
    device_id, _, seqs = parse_probe(payload)
    assert device_id == a1.device_id and set(seqs) == probed
    for port in probed:
        link, peer = _answer(ctl, "a1", port, payload)
        assert ctl.core.monitor._links[link].verdict.answered == seqs[port]
    # a copy seen on a port whose link does not end at a1 is not taken as an answer
    link, peer = _answer(ctl, "a1", min(probed), payload)
    other = ctl.sessions[peer.node]
    before = {lk: st.verdict.answered for lk, st in ctl.core.monitor._links.items()}
    ctl._on_packet_in(other, payload, {1: bytes([peer.port + 1])})
    assert {lk: st.verdict.answered for lk, st in ctl.core.monitor._links.items()} == before
    # every round's PacketOut went to the group; edge and core switches probe nothing (k=4's
    # links are probed from the aggregation side)
    assert all(md == metadata for _, md in ctl.sessions["a1"].packets_out[:rounds])
    assert not ctl.sessions["e1"].packets_out and not ctl.sessions["c1"].packets_out


def test_a_program_without_probe_groups_gets_one_probe_per_link(p4info_without_probe_group,
                                                                 caplog):
    ctl = _controller(p4info_without_probe_group)
    with caplog.at_level("INFO", logger="mrclab.controller.fabric"):
        ctl.start()
    assert "probing 32 links every 500 ms from 8 switches, one PacketOut per link (the " \
        "program's packet_out header has no probe_group field)" in caplog.text
    try:
        assert _wait(ctl.ready.is_set)
        assert _read_state(ctl, "a1").multicast == {}
        assert _wait(lambda: len(ctl.sessions["a1"].packets_out) >= 4)
        for payload, metadata in ctl.sessions["a1"].packets_out[:4]:
            device_id, _, seqs = parse_probe(payload)
            ((port, seq),) = seqs.items()
            assert metadata == {1: bytes([port]), 2: b"\x00"}  # egress_port, _pad
            link, _ = _answer(ctl, "a1", port, payload)
            assert ctl.core.monitor._links[link].verdict.answered == seq
    finally:
        ctl.stop()


def test_unanswered_probes_take_links_down(p4info):
    ctl = _controller(p4info, spec="leafspine:leaves=2,spines=2,hosts=1",
                      probe_interval=0.02, miss_limit=3)
    ctl.start()
    assert _wait(ctl.ready.is_set)
    # the fake switches never answer probes: every fabric link goes down and is rerouted
    assert _wait(lambda: len(ctl.core.monitor.down_links()) == 4)
    assert _wait(lambda: len(ctl.core.reconvergences) >= 1)
    assert _wait(lambda: "10.0.1.1" not in ctl.core.next_hops["l1"])
    ctl.stop()


def test_switch_that_never_answers_is_reported(p4info):
    class DeadSession(FakeSession):
        def start(self):
            if self.name != "s2":
                super().start()

    topo = TopologyFile(fabric=parse_spec("leafspine:leaves=2,spines=2,hosts=1"),
                        target="p4emu")
    ctl = FabricController(topo, p4info, b"cfg", ForwardingPolicy(), election_id=1,
                           session_factory=DeadSession, ready_timeout=0.3)
    ctl.start()
    assert _wait(ctl.ready.is_set)
    assert ctl.missing == ["s2"]
    assert ctl.synced["l1"] and ctl.synced["l2"]
    ctl.stop()


def test_failed_write_is_retried_until_the_switch_is_programmed(p4info):
    class FlakySession(FakeSession):
        failures = 1

        def write(self, updates):
            if self.name == "l1" and FlakySession.failures:
                FlakySession.failures -= 1
                return ["RESOURCE_EXHAUSTED: table full"]
            return super().write(updates)

    topo = TopologyFile(fabric=parse_spec("leafspine:leaves=2,spines=2,hosts=1"),
                        target="p4emu")
    ctl = FabricController(topo, p4info, b"cfg", ForwardingPolicy(), election_id=1,
                           session_factory=FlakySession, probe_interval=10)
    threads_start = time.monotonic()
    ctl.start()
    assert _wait(ctl.ready.is_set, timeout=10)
    assert ctl.missing == []
    assert FlakySession.failures == 0
    assert _read_state(ctl, "l1") == ctl.desired_state("l1")
    assert time.monotonic() - threads_start >= 0.4  # one back-off before the retry
    ctl.stop()


def test_down_links_survive_a_controller_restart(p4info, tmp_path):
    state = tmp_path / "links.json"
    topo = TopologyFile(fabric=parse_spec("fattree:k=4"), target="p4emu")
    first = FabricController(topo, p4info, b"cfg", ForwardingPolicy(), election_id=1,
                             session_factory=FakeSession, probe_interval=10,
                             link_state_path=state)
    dead = link_id(first.fabric.find_link("c1", "a7"))
    with first._core_lock:
        first.core.monitor._links[dead].verdict.went_down()
    first._apply_link_event(LinkEvent(dead, LinkStatus.DOWN, 1.0, 0.7))
    assert state.exists()
    second = FabricController(topo, p4info, b"cfg", ForwardingPolicy(), election_id=2,
                              session_factory=FakeSession, link_state_path=state)
    assert second.core.monitor.down_links() == {dead}
    assert second.core.next_hops == first.core.next_hops
    assert second.core.next_hops["a1"]["10.0.3.4"] == {4}
    # another fabric ignores the file
    other = TopologyFile(fabric=parse_spec("fattree:k=2"), target="p4emu")
    third = FabricController(other, p4info, b"cfg", ForwardingPolicy(), election_id=3,
                             session_factory=FakeSession, link_state_path=state)
    assert third.core.monitor.down_links() == set()


def test_the_routing_function_is_a_parameter(p4info):
    from mrclab.controller.next_hops import compute_next_hops

    calls = []

    def single_uplink(fabric, down):
        """A student's policy: the project's next hops, but one port where there are many."""
        calls.append(set(down))
        hops = compute_next_hops(fabric, down)
        return {sw: {dst: frozenset([min(ports)]) for dst, ports in table.items()}
                for sw, table in hops.items()}
    ctl = _controller(p4info, routing=single_uplink)
    assert calls == [set()]  # computed at start with no link down
    assert all(len(ports) == 1 for table in ctl.core.next_hops.values() for ports in table.values())
    assert ctl.core.routing is single_uplink
