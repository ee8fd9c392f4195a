"""The virtual-time fabric: the lab's switches, controller and endpoint on one clock."""

import random

import pytest

from mrclab.controller.probe_liveness import LinkStatus
from mrclab.endpoint.core.ev_pool import EvStatus
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.host import FlowSpec
from mrclab.fabric.spec import parse_spec
from mrclab.sim import SimNetwork, SimSettings
from mrclab.sim.links import LinkModel, LinkState

KB = 1000


def fattree(**settings) -> SimNetwork:
    net = SimNetwork(parse_spec("fattree:k=4"), SimSettings(**settings))
    assert net.start() == 556  # the entries the lab's controller installs, 8 probe groups among them
    return net


def delivered(net: SimNetwork, flow) -> bool:
    dst = net.hosts[flow.spec.dst]
    return flow.sender.done and any(m.ok and m.length == flow.spec.size
                                    for m in dst.messages)


def test_every_pod_reaches_every_other_through_the_programmed_p4_switches():
    net = fattree()
    flows = [net.add_flow(FlowSpec(src, dst, 20 * KB, seed=i))
             for i, (src, dst) in enumerate([("h1", "h16"), ("h5", "h2"), ("h9", "h14"),
                                             ("h13", "h6"), ("h2", "h3")])]
    assert net.run_flows(0.01)
    assert all(delivered(net, f) for f in flows)
    # the data crossed switches: edge, aggregation, core, aggregation, edge between pods
    assert net.packet_hops() >= 6 * sum(f.sender.stats.data_sent for f in flows[:4])


def _permutation_run(seed: int):
    net = fattree(seed=seed)
    pairs = [(f"h{i}", f"h{(i + 7) % 16 + 1}") for i in range(1, 17)]
    flows = [net.add_flow(FlowSpec(a, b, 60 * KB, seed=i)) for i, (a, b) in enumerate(pairs)]
    assert net.run_flows(0.01)
    return [(f.sender.finish_time, f.sender.stats, f.progress) for f in flows], net


def test_the_same_seed_gives_the_same_run():
    a, net = _permutation_run(3)
    b, _ = _permutation_run(3)
    assert a == b
    assert sum(s.ecn_echoes + s.nacks for _t, s, _p in a) > 0  # queues did build up


def test_a_gray_failure_is_found_by_probes_and_routed_around():
    net = fattree(probe_interval_s=50e-6, miss_limit=3, write_delay_s=20e-6)
    flow = net.add_flow(FlowSpec("h1", "h16", 2000 * KB))
    net.set_link("c1", "a1", LinkState.GRAY, at=30e-6)
    assert net.run_flows(0.05)
    assert delivered(net, flow)
    down = [e for e in net.controller.events if e.status == LinkStatus.DOWN.value]
    assert {e.link.split("-")[0].split(":")[0] for e in down} <= {"c1", "a1"} and down
    first = min(down, key=lambda e: e.detected_at)
    # declared after 3 missed probes, a few probe intervals after the failure
    assert 30e-6 + 2 * 50e-6 <= first.detected_at <= 30e-6 + 6 * 50e-6
    assert first.programmed_at == pytest.approx(first.detected_at + 20e-6)
    assert first.switches > 0 and first.updates > 0
    assert any(lk.startswith("c1:") or lk.startswith("a1:")
               for lk in net.controller.down_links())
    # the rewritten aggregation switch no longer lists the dead port in any group
    agg = net.fabric.switches["a1"]
    dead = next(p for p, peer in agg.ports.items() if peer.node == "c1")
    groups = net.controller.core.installed["a1"].groups.values()
    assert all(dead not in {port for port, _w in members} for members in groups)


def test_an_admin_down_port_is_skipped_by_watch_port_without_the_controller():
    net = SimNetwork(parse_spec("fattree:k=4"), SimSettings(spray="ecmp"))
    net.start(probing=False)
    flows = [net.add_flow(FlowSpec(f"h{i}", f"h{17 - i}", 100 * KB, seed=i)) for i in (1, 2, 3)]
    for agg in ("a1", "a3", "a5", "a7"):  # core c1 cut off from every pod
        net.set_link("c1", agg, LinkState.ADMIN_DOWN)
    assert net.run_flows(0.05)
    assert all(delivered(net, f) for f in flows)
    assert net.controller.events == []  # nobody rerouted: the groups' watch ports did


def test_a_whole_plane_failing_mid_transfer_leaves_the_other_carrying_everything():
    net = SimNetwork(parse_spec("multiplane:planes=2,base=fattree:k=4"), SimSettings())
    net.start()
    flow = net.add_flow(FlowSpec("h1", "h16", 3000 * KB))
    net.fail_plane(1, at=80e-6)
    assert net.run_flows(0.05)
    assert delivered(net, flow)
    s = flow.sender
    assert s.finish_time > 80e-6
    assert any(st.status is not EvStatus.GOOD for st in s.pool.planes[1])
    assert all(st.status in (EvStatus.GOOD, EvStatus.CONGESTED) for st in s.pool.planes[0])


def test_an_incast_is_trimmed_and_every_trim_is_answered_by_a_nack_and_a_resend():
    net = fattree(queue_depth=16, trim_threshold=4, ecn_threshold=0)
    flows = [net.add_flow(FlowSpec(f"h{i}", "h16", 200 * KB, seed=i)) for i in range(1, 9)]
    assert net.run_flows(0.05)
    assert all(delivered(net, f) for f in flows)
    nacks = sum(f.sender.stats.nacks for f in flows)
    assert nacks > 0
    assert sum(f.sender.stats.nack_retransmits for f in flows) == nacks
    assert sum(f.sender.stats.timeouts for f in flows) == 0


def _incast(pace: bool) -> tuple[float, int, int]:
    """15 hosts send 100 us of h16's link in all at once, each a first window of a BDP and
    the simulator's timers: (completion over the ideal, trims, timeouts)."""
    net = fattree(pace_resends=pace)
    s = net.settings
    min_rto, initial_rto, max_rto = s.rto_timers()
    bdp = s.bdp_packets(net.fabric.max_switch_hops())
    cfg = SenderConfig(init_cwnd=bdp, init_ssthresh=bdp, min_rto=min_rto,
                       initial_rto=initial_rto, max_rto=max_rto)
    size = int(100e-6 * s.link_rate_bps / 8 / 15)
    flows = [net.add_flow(FlowSpec(f"h{i}", "h16", size, seed=i), cfg) for i in range(1, 16)]
    assert net.run_flows(0.01)
    assert all(delivered(net, f) for f in flows)
    end = max(f.sender.finish_time for f in flows)
    return (end / (15 * size * 8 / net.settings.link_rate_bps),
            sum(f.sender.stats.nacks for f in flows), sum(f.sender.stats.timeouts for f in flows))


def test_receivers_pace_the_resends_of_an_incast_so_they_are_not_trimmed_again():
    paced_slowdown, paced_trims, paced_timeouts = _incast(True)
    slowdown, trims, timeouts = _incast(False)
    # every first window (a BDP each) arrives at once: most of it is trimmed either way;
    # unpaced, the resends come back together and are trimmed again, round after round
    assert paced_trims < 0.7 * trims and paced_slowdown < 0.75 * slowdown
    assert paced_timeouts == 0 and paced_slowdown < 1.2


@pytest.mark.parametrize("spec, settings, words", [
    ("fattree:k=3", {}, "k"),
    ("fattree:k=4", {"link_rate_bps": 0}, "link rate"),
    ("fattree:k=4", {"spray": "warp"}, "spray mode"),
    ("ring:n=4", {}, "ring"),
])
def test_bad_input_is_one_line_naming_it(spec, settings, words):
    with pytest.raises(ValueError, match=words) as info:
        SimNetwork(parse_spec(spec), SimSettings(**settings))
    assert "\n" not in str(info.value)


def test_a_flow_to_an_unknown_host_or_plane_is_refused():
    net = fattree()
    with pytest.raises(ValueError, match="unknown host 'h99'"):
        net.add_flow(FlowSpec("h1", "h99", 10))
    with pytest.raises(ValueError, match="no plane 3"):
        net.fail_plane(3)


def test_a_gray_failure_without_the_controller_stalls_an_ecmp_flow():
    # the contrast to the test above: ports stay up, watch_port cannot help
    net = SimNetwork(parse_spec("fattree:k=4"), SimSettings(spray="ecmp"))
    net.start(probing=False)
    flows = [net.add_flow(FlowSpec(f"h{i}", f"h{17 - i}", 100 * KB, seed=i)) for i in (1, 2, 3)]
    for agg in ("a1", "a3", "a5", "a7"):
        net.set_link("c1", agg, LinkState.GRAY)
    assert not net.run_flows(0.05)
    assert not all(f.sender.done for f in flows)


@pytest.mark.parametrize("model, low, high", [(LinkModel.WIRE, 6 * 0.02, 0.3),
                                              (LinkModel.VETH, 0.0, 0.005)])
def test_a_frame_crosses_a_wire_in_its_frame_time_and_a_veth_at_once(model, low, high):
    """One 9000-byte frame at 3 Mb/s (about 22 ms on a wire) across 5 switches and back: on wires
    it pays its frame time on each of the 6 links; on the lab's veths it is across at once,
    as the lab's first packets are (only queues space frames there)."""
    net = SimNetwork(parse_spec("fattree:k=4"),
                     SimSettings(link_rate_bps=3e6, link_delay_s=0, mtu=9000,
                                 link_model=model))
    net.start(probing=False)
    flow = net.add_flow(FlowSpec("h1", "h16", 8000))
    assert net.run_flows(1.0) and delivered(net, flow)
    assert low < flow.sender.finish_time - flow.sender.start_time < high


def test_flow_payloads_past_what_one_randbytes_call_makes_come_in_chunks():
    from mrclab.sim.network import random_bytes

    assert random_bytes(1000) == random.Random(1000).randbytes(1000)  # one chunk: as ever
    chunked = random_bytes(10_000, chunk=4096)
    assert len(chunked) == 10_000 and chunked == random_bytes(10_000, chunk=4096)
    assert chunked[:4096] == random.Random(10_000).randbytes(4096)
    assert chunked[4096:8192] != chunked[:4096]


def test_a_routing_of_ones_own_runs_on_the_simulator_as_in_the_lab():
    """The controller core takes the routing as a parameter on both engines: here every
    switch keeps only its lowest uplink, so no multipath group is installed (every
    destination is one downlink entry) and the flows still arrive."""
    from mrclab.controller.next_hops import compute_next_hops

    def lowest_uplink(fabric, down):
        return {sw: {ip: frozenset({min(ports)}) for ip, ports in table.items()}
                for sw, table in compute_next_hops(fabric, down).items()}

    net = SimNetwork(parse_spec("fattree:k=4"), SimSettings(), routing=lowest_uplink)
    net.start()
    states = net.controller.core.installed.values()
    assert all(not state.groups and not state.uplink for state in states)
    assert all(len(state.downlink) == len(net.fabric.hosts) for state in states)
    flow = net.add_flow(FlowSpec("h1", "h16", 50 * KB))
    assert net.run_flows(0.01)
    assert delivered(net, flow)
