"""The controller core alone: events in, writes and records out, no clock and no I/O."""

from __future__ import annotations

import logging

import pytest

from mrclab.controller.core import ControllerCore
from mrclab.controller.link_verdict import LinkVerdict
from mrclab.controller.next_hops import compute_next_hops, link_id
from mrclab.controller.p4rt_codec import Codec, P4Ids
from mrclab.controller.probe_liveness import LinkEvent, LinkStatus, parse_probe
from mrclab.controller.switch_state import ForwardingPolicy, SwitchState
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.spray import SPRAY_MODES


class RecordingWriter:
    """A switch that accepts every phase, or refuses the phases listed in `refuse`."""

    def __init__(self, refuse: tuple[int, ...] = ()) -> None:
        self.phases: list[int] = []
        self.refuse = refuse

    def __call__(self, updates):
        self.phases.append(len(updates))
        if len(self.phases) - 1 in self.refuse:
            return [f"refused {len(updates)} updates"]
        return []


def _core(p4info, spec="fattree:k=4", **kwargs):
    kwargs.setdefault("probe_interval", 0.05)
    return ControllerCore(parse_spec(spec), Codec(P4Ids(p4info)), ForwardingPolicy(), **kwargs)


def _program_all(core):
    for name in core.fabric.switches:
        core.write(name, SwitchState(), core.desired(name), RecordingWriter())


def test_a_switch_is_written_in_phases_and_mirrored(p4info):
    core = _core(p4info)
    writer = RecordingWriter()
    written = core.write("a1", SwitchState(), core.desired("a1"), writer)
    assert written == sum(writer.phases) > 0 and len(writer.phases) >= 2
    assert core.installed["a1"] == core.desired("a1")
    again = RecordingWriter()
    assert core.write("a1", core.installed["a1"], core.desired("a1"), again) == 0
    assert again.phases == []


def test_a_refused_phase_drops_the_mirror(p4info, caplog):
    core = _core(p4info)
    writer = RecordingWriter(refuse=(1,))
    with caplog.at_level(logging.ERROR, logger="mrclab.controller.core"):
        written = core.write("a1", SwitchState(), core.desired("a1"), writer)
    assert written == sum(writer.phases) - writer.phases[1]
    assert core.installed["a1"] is None  # read the switch back before the next write
    assert "a1: " in caplog.text and "updates failed" in caplog.text


def test_a_failed_link_reroutes_the_switches_whose_paths_crossed_it(p4info):
    core = _core(p4info)
    _program_all(core)
    dead = link_id(core.fabric.find_link("c1", "a1"))
    core.monitor._links[dead].verdict.went_down()
    reroute = core.link_event(LinkEvent(dead, LinkStatus.DOWN, 1.0, 0.85))
    assert reroute.down == frozenset({dead})
    assert "a1" in reroute.switches and "c1" in reroute.switches
    assert set(reroute.switches) < set(core.fabric.switches)  # not every switch
    assert core.next_hops == compute_next_hops(core.fabric, {dead})
    updates = sum(core.write(name, core.installed[name], core.desired(name),
                             RecordingWriter()) for name in reroute.switches)
    record = core.reconverged(reroute, 1.25, len(reroute.switches), updates)
    assert record.status == "down" and record.program_s == 0.25
    assert record.detect_s == pytest.approx(0.15) and record.total_s == pytest.approx(0.4)
    assert core.reconvergences == [record]
    assert core.down_link_names() == [record.link]


def test_routing_and_the_verdict_rule_are_parameters(p4info):
    calls = []

    def single_uplink(fabric, down):
        calls.append(set(down))
        hops = compute_next_hops(fabric, down)
        return {sw: {ip: frozenset({min(ports)}) for ip, ports in table.items()}
                for sw, table in hops.items()}

    core = _core(p4info, routing=single_uplink)
    assert calls == [set()]
    assert all(len(p) == 1 for table in core.next_hops.values() for p in table.values())
    dead = link_id(core.fabric.find_link("c1", "a1"))
    core.monitor._links[dead].verdict.went_down()
    core.link_event(LinkEvent(dead, LinkStatus.DOWN, 1.0, 0.85))
    assert calls == [set(), {dead}]

    made = []

    class RecordingVerdict(LinkVerdict):
        def __init__(self, miss_limit, up_after, up):
            made.append(miss_limit)
            super().__init__(miss_limit, up_after, up)

    core = _core(p4info, verdict=RecordingVerdict, miss_limit=7)
    assert len(made) == len(core.monitor.links) and set(made) == {7}


def test_probe_rounds_and_answers_go_through_the_core(p4info):
    core = _core(p4info)
    events, outs = core.probe_round(0.0, 1234)
    assert events == []
    probing = {out.switch for out in outs}
    assert probing == set(core.monitor.probe_ports)  # one PacketOut per probing switch
    out = next(o for o in outs if o.switch == "a1")
    probe = parse_probe(out.frame)
    assert probe.device_id == core.fabric.switches["a1"].device_id and probe.ts_ms == 1234
    # the copy out of a1's port towards c1 arrives at c1 as a PacketIn
    link = core.fabric.find_link("a1", "c1")
    (a_end, b_end) = ((link.a, link.a_port), (link.b, link.b_port))
    sender, receiver = (a_end, b_end) if a_end[0] == "a1" else (b_end, a_end)
    assert sender[1] in probe.seqs
    metadata = {1: receiver[1].to_bytes(2, "big")}
    assert core.packet_in(receiver[0], metadata, out.frame, 0.01) is None  # up already
    assert core.monitor.is_up(link_id(link))


def test_a_lost_switch_forgets_its_state_and_a_policy_rewrites_all(p4info):
    core = _core(p4info)
    _program_all(core)
    core.switch_down("e1")
    assert core.installed["e1"] is None and core.installed["e2"] is not None
    core.switch_up("e1")
    names = core.set_spray_mode(SPRAY_MODES["ev"])
    assert names == list(core.fabric.switches)
    assert core.desired("e2").spray_mode == SPRAY_MODES["ev"]
    assert core.desired("e2") != core.installed["e2"]
