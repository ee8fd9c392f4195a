"""Leaf-spine and 2-plane fat-tree (MRCLAB_TARGET: p4emu or BMv2): reachability and
failover (lighter checks)."""

from __future__ import annotations

import re
import time

import pytest

from mrclab.control.command import controller_args
from mrclab.fabric.generators import PortBases
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.lab.lab import Lab, LabConfig
from mrclab.mininet.reachability import ping_all_pairs
from mrclab.mininet.traffic import BackgroundPing
from tests.targets import integration_target

from .fabric import core_tx_total, link_events, run_transfer
from .waiting import wait_for

pytestmark = pytest.mark.integration
TARGET = integration_target()


def _lab(tmp_path, spec: str, controller: list[str] | None = None) -> Lab:
    return Lab(LabConfig(spec=spec, target=TARGET, build_dir=tmp_path,
                         bases=PortBases(grpc=51300, thrift=10300),
                         controller_args=controller or []))


def _wait_event(lab: Lab, start: int, status: str, a: str, b: str,
                timeout: float = 10.0) -> Reconvergence | None:
    """The first event after index `start` for link a-b with `status`, waiting for it."""
    events = wait_for(lambda: link_events(lab, start, a, b, status), timeout)
    return events[0] if events else None


def test_leafspine_pingall_and_failover(tmp_path):
    with _lab(tmp_path, "leafspine:leaves=3,spines=2,hosts=2,bw=10") as lab:
        lab.start()
        net = lab.net.net
        assert net.pingAll(timeout="1") == 0
        h1 = net.get("h1")
        assert "htb" in h1.cmd("tc qdisc show dev h1-eth0")  # the bw option shaped the link
        ping = BackgroundPing(h1, "10.0.2.2", count=120, interval=0.05)
        time.sleep(0.5)  # a duration: the ping is under way before the link fails
        start = len(lab.reconvergences())
        lab.set_link("l3", "s1", up=False)
        result = ping.result()
        event = _wait_event(lab, start, "down", "l3", "s1")
        assert event is not None
        print(f"\nleaf-spine l3-s1 down: loss {result.lost}/{result.sent}, "
              f"from command {event.from_command_s:.3f} s")
        assert result.loss_pct < 5, result
        assert all("s1" not in hop for path in lab.ask("paths", src="h1", dst="h6")
                   for hop in path)
        assert ping_all_pairs(net, lab.fabric) == []
        lab.set_link("l3", "s1", up=True)
        assert _wait_event(lab, start, "up", "l3", "s1") is not None


def test_link_delay_is_applied_or_refused_in_one_line(tmp_path):
    from mrclab.lab.lab import LabError
    from mrclab.mininet.network import qdisc_available

    lab = _lab(tmp_path, "leafspine:leaves=2,spines=1,hosts=1,delay=2ms")
    with lab:
        if not qdisc_available("netem", "delay 1ms"):
            with pytest.raises((LabError, ValueError), match="netem"):
                lab.start()
            return
        lab.start()
        # 4 links of 2 ms each way between hosts on different leaves
        out = lab.net.net.get("h1").cmd("ping -n -c 3 10.0.1.1")
        rtt = re.search(r"rtt min/avg/max/mdev = ([\d.]+)/", out)
        assert rtt is not None and float(rtt.group(1)) >= 16.0


def test_two_plane_fattree_pingall_and_failover(tmp_path):
    # 40 switches and an 8 MB transfer saturate 2 cores: six missed probes 100 ms apart
    # (600 ms) rather than three 50 ms apart before a link counts as down, so load alone
    # does not fail a link
    with _lab(tmp_path, "multiplane:planes=2,base=fattree:k=4",
              controller_args(probe_interval=0.1, miss_limit=6)) as lab:
        seconds = lab.start()
        print(f"\n2-plane fat-tree k=4 (40 switches) ready in {seconds:.1f} s")
        net = lab.net.net
        assert ping_all_pairs(net, lab.fabric) == []
        paths = lab.ask("paths", src="h1", dst="h16")
        assert len(paths) == 8  # 4 cores per plane
        lab.ask("spray", mode="ev")
        before = core_tx_total(lab)
        received, (sent,) = run_transfer(lab, tmp_path / "xfer", ["h1"], "h16", "8M")
        moved = {c: n - before[c] for c, n in core_tx_total(lab).items()}
        print(f"\n8 MB over 2 planes: {sent.goodput_mbps:.1f} Mb/s, planes {sent.planes}, "
              f"core packets {moved}")
        assert received.stats.messages_ok == 1
        assert len(moved) == 8 and all(n > 100 for n in moved.values()), moved  # 8 paths
        start = len(lab.reconvergences())
        lab.set_link("p1c1", "p1a7", up=False)
        event = _wait_event(lab, start, "down", "p1c1", "p1a7")
        assert event is not None
        assert len(lab.ask("paths", src="h1", dst="h16")) == 7
        # every pair again once the rewritten groups are in (once in CI a pair of another
        # pod missed three pings right after the event, then answered)
        assert wait_for(lambda: not ping_all_pairs(net, lab.fabric), 20)


def test_switch_that_never_answers_is_reported_and_avoided(tmp_path, monkeypatch):
    from mrclab.mininet.network import FabricNetwork

    original_start = FabricNetwork.start

    def start_then_lose_s2(self, ready_timeout=30.0, on_launched=lambda: None):
        def lose_s2_first():
            # s2 comes up and dies before the controller (started here) ever reaches it
            self.switch("s2").wait_ready(time.monotonic() + ready_timeout)
            self.switch("s2").kill_process()
            on_launched()
        return original_start(self, ready_timeout, on_launched=lose_s2_first)

    monkeypatch.setattr(FabricNetwork, "start", start_then_lose_s2)
    # one process per switch: s2 alone dies (in a shard, its shard-mates would go too)
    config = LabConfig(spec="leafspine:leaves=2,spines=2,hosts=2", target=TARGET,
                       build_dir=tmp_path, bases=PortBases(grpc=51300, thrift=10300),
                       controller_args=controller_args(ready_timeout=4), switch_processes=0)
    with Lab(config) as lab:
        lab.start()
        status = lab.status()
        assert status.missing == ["s2"]
        assert not status.switches["s2"].synced
        assert all(status.switches[n].synced for n in ("l1", "l2", "s1"))
        log_text = (tmp_path / "logs" / "controller.log").read_text()
        assert "switches not answering after 4 s: s2" in log_text
        wait_for(lambda: len(lab.status().down_links) >= 2, 10)
        assert sorted(lab.status().down_links) == ["l1:4-s2:1", "l2:4-s2:2"]
        assert lab.net.net.pingAll(timeout="1") == 0


def test_lab_runs_from_a_build_dir_that_cannot_hold_sockets(tmp_path):
    """A VM's shared folder (or any path too long for a socket) as the build directory: the
    lab keeps its control socket and pid files in its runtime directory instead."""
    import socket

    build_dir = tmp_path / ("deep-shared-folder-" * 6)
    build_dir.mkdir()
    with socket.socket(socket.AF_UNIX) as probe, pytest.raises(OSError):
        probe.bind(str(build_dir / "controller.sock"))  # no socket can live here
    with Lab(LabConfig(spec="leafspine:leaves=2,spines=1,hosts=1", target=TARGET,
                       build_dir=build_dir, bases=PortBases(grpc=51300, thrift=10300))) as lab:
        lab.start()
        assert lab.socket_path.is_socket() and build_dir not in lab.socket_path.parents
        assert lab.status().ready
        assert lab.net.net.pingAll(timeout="1") == 0
    assert not lab.socket_path.exists()
    assert (build_dir / "logs" / "controller.log").is_file()
