"""Fat-tree k=4 (MRCLAB_TARGET: p4emu or BMv2): reachability, spraying over all cores,
failover, restarts.

One fabric is shared by the tests of this module (bring-up is the expensive part); every
test leaves it as it found it.
"""

from __future__ import annotations

import sys
import time

import pytest

from mrclab.fabric.generators import PortBases
from mrclab.lab.counters import switch_counters
from mrclab.lab.lab import Lab, LabConfig
from mrclab.mininet.traffic import BackgroundPing, parse_ping, udp_flows
from tests.targets import integration_target

from .fabric import link_events
from .waiting import wait_for

pytestmark = pytest.mark.integration
TARGET = integration_target()

CORES = ("c1", "c2", "c3", "c4")
# Link cut to new paths installed, from the set_link command: measured 0.36-0.56 s over 3
# runs on p4emu (20 Python switches on 2 cores, load average 4-8 from other jobs); the
# bound is ~4.5x the worst, for a CI machine as loaded or more.
RECONVERGENCE_BOUND_S = 2.5


@pytest.fixture(scope="module")
def fabric_lab(tmp_path_factory):
    config = LabConfig(spec="fattree:k=4", target=TARGET,
                       build_dir=tmp_path_factory.mktemp("fattree"),
                       bases=PortBases(grpc=51100, thrift=10100))
    lab = Lab(config)
    try:
        seconds = lab.start()
        print(f"\nfat-tree k=4 ready in {seconds:.1f} s")
        yield lab
    finally:
        lab.stop()


def _core_tx(lab: Lab) -> dict[str, int]:
    return {core: switch_counters(lab, core).tx_packets() for core in CORES}


def test_pingall_has_no_loss(fabric_lab):
    status = fabric_lab.status()
    assert status.missing == []
    assert status.entries > 0
    assert fabric_lab.net.net.pingAll(timeout="1") == 0


def _rx_packets(node, intf: str) -> int:
    for line in node.cmd("cat /proc/net/dev").splitlines():
        name, _, fields = line.partition(":")
        if name.strip() == intf:
            return int(fields.split()[1])
    raise AssertionError(f"{intf} not in {node.name}'s /proc/net/dev")


BURST = 150


def test_a_back_to_back_burst_crosses_a_switch(fabric_lab):
    """A burst sent as fast as a host can: the edge switch must read it off its port.
    BMv2 with segmentation offloads on its ports forwarded about 1 in 4 (37 of 150); with
    them off 148-150. Some loss stays legitimate: the burst is larger than the 64-packet
    egress queue, which overflows if the switch's egress falls behind its ingress."""
    net = fabric_lab.net.net
    h1, h2 = net.get("h1"), net.get("h2")
    dst = fabric_lab.fabric.hosts["h2"].nics[0].ip
    intf = h2.defaultIntf().name
    before = _rx_packets(h2, intf)
    h1.cmd(f"{sys.executable} -c \"import socket; s = socket.socket(socket.AF_INET, "
           f"socket.SOCK_DGRAM); [s.sendto(bytes(64), ('{dst}', 9)) for _ in range({BURST})]\"")
    wait_for(lambda: _rx_packets(h2, intf) - before >= BURST, 5.0)
    received = _rx_packets(h2, intf) - before
    assert received >= 0.9 * BURST, f"h2 received {received} of {BURST}"


def test_flow_set_across_pods_uses_every_core(fabric_lab):
    net = fabric_lab.net.net
    for _attempt in range(2):
        # on a loaded machine the controller's probes may miss and take a core out of the
        # groups for a while (seen once in CI: c1 carried none of 120 flows); that fabric
        # is not the one this test asks about, so the flows run again once it is whole
        wait_for(lambda: not fabric_lab.status().down_links, 15.0)
        verdicts = len(fabric_lab.reconvergences())
        before = _core_tx(fabric_lab)
        for src in ("h1", "h2", "h5"):
            udp_flows(net.get(src), "10.0.3.4", flows=40)
        # the senders are done, the switches perhaps not: a shard busy elsewhere may still
        # hold a core's share (seen twice: c1 counted 0 when read at once)
        wait_for(lambda start=before: all(tx > start[core]
                                          for core, tx in _core_tx(fabric_lab).items()), 5.0)
        after = _core_tx(fabric_lab)
        if len(fabric_lab.reconvergences()) == verdicts:
            break  # no link verdict while the flows ran: every core was in the groups
    deltas = {core: after[core] - before[core] for core in CORES}
    print(f"\ncore tx deltas: {deltas}")
    assert all(delta > 0 for delta in deltas.values()), deltas


def _core_link_on_h1_h16_path(lab: Lab) -> tuple[str, str]:
    """The core the h1→h16 ICMP flow crosses, and that core's aggregation switch in pod 3."""
    before = _core_tx(lab)
    lab.net.net.get("h1").cmd("ping -n -q -c 20 -i 0.01 10.0.3.4")
    after = _core_tx(lab)
    core = max(CORES, key=lambda c: after[c] - before[c])
    return core, {"c1": "a7", "c2": "a7", "c3": "a8", "c4": "a8"}[core]


def test_core_link_failure_during_ping(fabric_lab):
    net = fabric_lab.net.net
    h1, h16 = net.get("h1"), net.get("h16")
    core, pod3_agg = _core_link_on_h1_h16_path(fabric_lab)
    assert h16.IP() == "10.0.3.4"
    ping = BackgroundPing(h1, "10.0.3.4", count=120, interval=0.05)
    time.sleep(1.0)  # a duration: the ping runs a second on the old path before the cut
    events_before = len(fabric_lab.reconvergences())
    fabric_lab.set_link(core, pod3_agg, up=False)
    try:
        result = ping.result()
        # the first down after the cut (an up could precede it if a probe had missed before)
        events = wait_for(
            lambda: link_events(fabric_lab, events_before, core, pod3_agg, "down"), 10)
        assert events, "failed link not detected"
        event = events[0]
        print(f"\nlink {core}-{pod3_agg} down: loss {result.lost}/{result.sent}, "
              f"detect {event.detect_s:.3f} s, program {event.program_s:.3f} s, "
              f"total {event.total_s:.3f} s, from command {event.from_command_s:.3f} s")
        assert event.from_command_s < RECONVERGENCE_BOUND_S
        # pings are lost only while the controller reconverges, which the bound above
        # limits (measured 0.23-0.31 s from the command and 0-4 of 120 pings lost at 50 ms;
        # 0.45-0.8 s and 6-8 lost on a loaded machine): at most one ping per 50 ms of it,
        # and the one in flight at each end
        assert result.sent - result.received <= event.from_command_s / 0.05 + 2, result
        paths = fabric_lab.ask("paths", src="h1", dst="h16")
        assert len(paths) == 3 and not any(core in hop for path in paths for hop in path)
        # connectivity after reconvergence is complete
        out = h1.cmd("ping -n -q -c 5 -i 0.05 10.0.3.4")
        assert parse_ping(out).received == 5, out  # "100% packet loss" ends in "0% packet loss"
    finally:
        fabric_lab.set_link(core, pod3_agg, up=True)
    up = wait_for(lambda: link_events(fabric_lab, events_before, core, pod3_agg, "up"), 10)
    assert up, "restored link not detected"
    assert len(fabric_lab.ask("paths", src="h1", dst="h16")) == 4


def test_killed_switch_recovers(fabric_lab):
    fabric_lab.restart_switch("c2")
    status = wait_for(lambda: (s := fabric_lab.status()).switches["c2"].synced
                       and s.switches["c2"].connects >= 2 and s, 30)
    assert status, "c2 was not reprogrammed"
    # its links may have been declared down while it was away; they must come back
    assert wait_for(lambda: fabric_lab.status().down_links == [], 10)
    net = fabric_lab.net.net
    assert net.pingAll(timeout="1") == 0
    # the new c2's counters, read back over P4Runtime: one row per fabric port, and every
    # one of its links carried some of pingAll's inter-pod traffic (measured 20-30 packets
    # a port; c2 sends no link probes, the aggregation end of each of its links does)
    tx = {port: row.tx_packets
          for port, row in switch_counters(fabric_lab, "c2").ports.items()}
    print(f"\nc2 tx packets after restart: {tx}")
    assert set(tx) == set(fabric_lab.fabric.switches["c2"].ports), tx
    assert all(n > 0 for n in tx.values()), tx


def test_controller_restart_loses_no_packets(fabric_lab):
    net = fabric_lab.net.net
    ping = BackgroundPing(net.get("h1"), "10.0.3.4", count=100, interval=0.05)
    time.sleep(0.5)  # a duration: the ping is under way before the controller stops
    fabric_lab.stop_controller()
    fabric_lab.start_controller()
    status = fabric_lab.wait_ready(60)
    result = ping.result()
    print(f"\ncontroller restart: ready again in {status.ready_s:.2f} s, "
          f"ping {result.received}/{result.sent}")
    assert status.missing == []
    assert result.lost == 0, result
    log_text = (fabric_lab.build_dir / "logs" / "controller.log").read_text()
    last_run = log_text.rsplit("controller started", 1)[-1]
    assert "pipeline pushed" not in last_run
    assert "pipeline kept, state read back, 0 updates" in last_run


def test_controller_restart_with_a_link_down_keeps_avoiding_it(fabric_lab):
    core, pod3_agg = _core_link_on_h1_h16_path(fabric_lab)
    events = len(fabric_lab.reconvergences())
    fabric_lab.set_link(core, pod3_agg, up=False)
    try:
        assert wait_for(lambda: link_events(fabric_lab, events, core, pod3_agg, "down"), 10)
        ping = BackgroundPing(fabric_lab.net.net.get("h1"), "10.0.3.4", count=80,
                              interval=0.05)
        time.sleep(0.3)  # a duration: the ping is under way before the controller stops
        fabric_lab.stop_controller()
        fabric_lab.start_controller()
        status = fabric_lab.wait_ready(60)
        result = ping.result()
        print(f"\ncontroller restart with {core}-{pod3_agg} down: ping "
              f"{result.received}/{result.sent}, down links {status.down_links}")
        assert result.lost == 0, result
        assert len(status.down_links) == 1 and core in status.down_links[0]
        assert len(fabric_lab.ask("paths", src="h1", dst="h16")) == 3
    finally:
        fabric_lab.set_link(core, pod3_agg, up=True)
    assert wait_for(lambda: fabric_lab.status().down_links == [], 10)
    assert len(fabric_lab.ask("paths", src="h1", dst="h16")) == 4


def test_admin_down_link_is_detected_and_avoided(fabric_lab):
    """The explicit admin-down failure: the interfaces go down (p4emu only)."""
    if fabric_lab.target == "bmv2":
        pytest.skip("admin-down freezes BMv2's packet I/O on every port of the switch "
                    "(behavioral-model #1215); the lab fails links by dropping instead")
    core, pod3_agg = _core_link_on_h1_h16_path(fabric_lab)
    events = len(fabric_lab.reconvergences())
    fabric_lab.set_link(core, pod3_agg, up=False, method="admin")
    try:
        assert wait_for(lambda: link_events(fabric_lab, events, core, pod3_agg, "down"), 10)
        assert len(fabric_lab.ask("paths", src="h1", dst="h16")) == 3
        # the replies cross the same link the other way: wait until they avoid it too
        assert wait_for(lambda: len(fabric_lab.ask("paths", src="h16", dst="h1")) == 3, 10)
        out = fabric_lab.net.net.get("h1").cmd("ping -n -q -c 5 -i 0.05 10.0.3.4")
        assert parse_ping(out).received == 5, out
    finally:
        fabric_lab.set_link(core, pod3_agg, up=True, method="admin")
    assert wait_for(lambda: fabric_lab.status().down_links == [], 10)
