"""The native fabric (`mrclab.sim.fabric_core`: the C loop with the wires and the switches'
compiled data path) gives the same records as the pure-Python reference, byte for byte,
on every simulated experiment's quick run (some reduced, so that both paths of all of them
run in about a minute), and the same again on a second run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mrclab.experiments import runner
from mrclab.experiments.config import Options
from mrclab.fabric.spec import parse_spec
from mrclab.sim import SimNetwork, SimSettings
from mrclab.sim.fabric_core import FABRIC_ENV, NativeWire
from mrclab.sim.links import LinkState, Wire
from tests.unit.sim.machine_free import machine_free

# each experiment's quick run, reduced where the whole one takes long on both paths
QUICK_RUNS = {
    "permutation": Options("permutation", quick=True, engine="sim", duration="110us",
                           modes=("ev", "source")),
    "incast": Options("incast", quick=True, engine="sim"),
    "failure": Options("failure", quick=True, engine="sim", modes=("ev",)),
    "planes": Options("planes", quick=True, engine="sim", rate="10G"),
    "signals": Options("signals", quick=True, engine="sim"),
    "failover": Options("failover", quick=True, engine="sim", modes=("ev",),
                        duration="360us", fail_at="150us,250us"),
    "collective": Options("collective", quick=True, engine="sim", iterations=1,
                          scenarios=("baseline",)),
}
LINK = ("e1", "a1")  # on h1's way up


def _records(options: Options, fabric: str, out: Path, monkeypatch) -> str:
    monkeypatch.setenv(FABRIC_ENV, fabric)
    runner.run(options, out)
    results = json.loads((out / "results.json").read_text())
    return json.dumps(machine_free(results), sort_keys=True)


@pytest.mark.parametrize("name", list(QUICK_RUNS))
def test_every_experiment_s_records_are_identical_on_either_fabric(name, tmp_path,
                                                                   monkeypatch):
    python = _records(QUICK_RUNS[name], "python", tmp_path / "python", monkeypatch)
    native = _records(QUICK_RUNS[name], "native", tmp_path / "native", monkeypatch)
    assert '"packet_hops"' in native  # real traffic was compared
    assert native == python


def test_the_native_fabric_repeats_itself(tmp_path, monkeypatch):
    options = QUICK_RUNS["incast"]
    first = _records(options, "native", tmp_path / "a", monkeypatch)
    assert _records(options, "native", tmp_path / "b", monkeypatch) == first


def _network(fabric: str) -> SimNetwork:
    return SimNetwork(parse_spec("fattree:k=4"), SimSettings(fabric=fabric))


def test_the_native_network_runs_its_switches_and_wires_in_c():
    native, python = _network("native"), _network("python")
    assert all(s.native_index is not None for s in native.switches.values())
    assert all(isinstance(w, NativeWire) for w in native.wires.values())
    assert all(s.native_index is None for s in python.switches.values())
    assert all(isinstance(w, Wire) for w in python.wires.values())
    assert all(type(nic).__name__ == "SimNic" for host in native.hosts.values()
               for nic in host.nics.values())


def test_failures_and_counters_read_the_same_through_the_native_wires():
    from mrclab.endpoint.host import FlowSpec

    figures = []
    for fabric in ("python", "native"):
        net = _network(fabric)
        net.start()
        net.add_flow(FlowSpec("h1", "h16", 200_000))
        net.set_link(*LINK, LinkState.GRAY, at=5e-6)
        net.set_link(*LINK, LinkState.UP, at=40e-6)
        net.run_flows(max_time=0.01)
        figures.append((net.loop.now, net.loop.events_run, net.packet_hops(),
                        net.port_counters(),
                        {k: w.counters for k, w in net.wires.items()},
                        [f.sender.board.delivered_count for f in net.flows]))
    assert figures[0] == figures[1]


def test_the_loop_keeps_event_loop_s_order_and_clock():
    from mrclab.endpoint.clock import EventLoop
    from p4emu.switch.native_tm_module import tm_module

    def script(loop) -> tuple:
        out: list[tuple[float, str]] = []
        for when, tag in ((2.0, "a"), (1.0, "b"), (2.0, "c"), (-1.0, "past")):
            loop.at(when, lambda t: out.append((loop.now, t)), tag)
        loop.after(1.0, lambda: loop.at(0.5, lambda: out.append((loop.now, "late"))))
        loop.run(1.5)
        mid = (loop.now, loop.events_run)
        loop.run(10.0, stop=lambda: len(out) >= 4)
        return out, mid, loop.now, loop.events_run

    assert script(EventLoop()) == script(tm_module().SimLoop())


def test_the_loop_pops_thousands_of_events_in_event_loop_s_order():
    """The C loop's heap (4 children a node) against EventLoop's heapq: thousands of
    events, many at the same time (their order is their scheduling order), some
    scheduling more as they run."""
    import random

    from mrclab.endpoint.clock import EventLoop
    from p4emu.switch.native_tm_module import tm_module

    rng = random.Random(7)
    times = [rng.choice((rng.random(), 0.25, 0.5, 0.5)) for _ in range(5000)]

    def script(loop) -> list[tuple[float, int]]:
        out: list[tuple[float, int]] = []

        def fire(i: int) -> None:
            out.append((loop.now, i))
            if i < 1500:  # a third of them schedule one more, some at this very time
                loop.after(times[-1 - i] if i % 3 else 0.0, fire, 5000 + i)
        for i, when in enumerate(times):
            loop.at(when, fire, i)
        loop.run(10.0)
        return out

    expected = script(EventLoop())
    assert len(expected) == 6500
    assert script(tm_module().SimLoop()) == expected


def test_the_native_nic_sends_as_nic_queue():
    """Control frames ahead of DATA, connections in turn, one frame at a time at the
    rate: the C NIC's frames reach the far end at the times `NicQueue`'s do."""
    import random

    from mrclab.endpoint.clock import EventLoop
    from mrclab.sim.fabric_core import native_loop, nic_queue

    def script(loop, wire_of) -> list:
        out: list = []
        nic = nic_queue(loop, wire_of(loop, lambda port, frame: out.append((loop.now, frame))))
        sends = [(0.0, b"d1" * 50, False, 1), (0.0, b"d2" * 50, False, 2),
                 (0.0, b"d3" * 50, False, 1), (0.0, b"ack", True, None),
                 (1e-6, b"d4" * 700, False, 3), (1e-6, b"nack", True, None),
                 (5e-6, b"d5" * 50, False, 2)]
        for when, frame, urgent, flow in sends:
            loop.at(when, lambda f=frame, u=urgent, k=flow: nic.send(f, urgent=u, flow=k))
        loop.at(2e-7, lambda: out.append(("backlog", nic.backlog)))
        loop.run(1.0)
        return out + [loop.events_run]

    def python_wire(loop, receive):
        return Wire(loop, 10e9, 1e-6, 0.0, random.Random(1), receive, 7)

    def native_wire(loop, receive):
        return NativeWire(loop, 10e9, 1e-6, 0.0, random.Random(1), 7, receive)

    assert script(EventLoop(), python_wire) == script(native_loop("native"), native_wire)


def test_a_switch_changes_no_frame_that_someone_else_holds():
    """Egress writes its headers over the frame's own when nothing else holds the frame
    (a frame on its way between switches); a frame someone holds is copied."""
    from mrclab.endpoint.netio import ECT0, FrameBuilder
    from mrclab.endpoint.wire import MrcHeader
    from mrclab.sim.network import paths_between

    net = _network("native")
    net.start()
    net.run(1e-6)  # the controller's writes are in
    switch, port = next((lk.b, lk.b_port) if lk.a == "h1" else (lk.a, lk.a_port)
                        for lk in net.fabric.links if "h1" in (lk.a, lk.b))
    pipeline = net.switches[switch].core.program.pipeline
    [(_, addr)] = paths_between(net.fabric.hosts["h1"], net.fabric.hosts["h16"])
    frame = FrameBuilder(addr).build(MrcHeader(psn=7, length=1000), bytes(1000), ECT0)
    before = bytes(bytearray(frame))
    [job] = pipeline.ingress(port, frame)
    [(out_port, copied)] = pipeline.egress(job)
    assert frame == before and copied != frame  # the TTL went down, on a copy
    given = bytes(bytearray(frame))
    given_id = id(given)
    [job] = pipeline.ingress(port, given)
    del given  # the job holds the only reference: its frame takes the new headers
    [(same_port, written)] = pipeline.egress(job)
    assert (same_port, written) == (out_port, copied) and id(written) == given_id
