"""Leaf-spine and 2-plane fat-tree on p4emu: reachability and failover (lighter checks)."""

from __future__ import annotations

import time

import pytest

from topologies.generators import PortBases
from topologies.lab import Lab, LabConfig
from topologies.reachability import ping_all_pairs
from topologies.traffic import BackgroundPing

pytestmark = pytest.mark.integration


def _lab(tmp_path, spec: str) -> Lab:
    return Lab(LabConfig(spec=spec, target="p4emu", build_dir=tmp_path,
                         bases=PortBases(grpc=51300, thrift=10300)))


def _wait_event(lab: Lab, start: int, status: str, timeout: float = 10.0) -> dict | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        events = [e for e in lab.ask("reconvergence")[start:] if e["status"] == status]
        if events:
            return events[0]
        time.sleep(0.2)
    return None


def test_leafspine_pingall_and_failover(tmp_path):
    with _lab(tmp_path, "leafspine:leaves=3,spines=2,hosts=2") as lab:
        lab.start()
        net = lab.net.net
        assert net.pingAll(timeout="1") == 0
        h1 = net.get("h1")
        ping = BackgroundPing(h1, "10.0.2.2", count=80, interval=0.05)
        time.sleep(0.5)
        lab.set_link("l3", "s1", up=False)
        result = ping.result()
        event = _wait_event(lab, 0, "down")
        assert event is not None
        print(f"\nleaf-spine l3-s1 down: loss {result.lost}/{result.sent}, "
              f"from command {event['from_command_s']:.3f} s")
        assert result.loss_pct < 30
        assert all("s1" not in hop for path in lab.ask("paths", src="h1", dst="h6")
                   for hop in path)
        assert ping_all_pairs(net, lab.fabric) == []
        lab.set_link("l3", "s1", up=True)
        assert _wait_event(lab, 0, "up") is not None


def test_two_plane_fattree_pingall_and_failover(tmp_path):
    with _lab(tmp_path, "multiplane:planes=2,base=fattree:k=4") as lab:
        seconds = lab.start()
        print(f"\n2-plane fat-tree k=4 (40 switches) ready in {seconds:.1f} s")
        net = lab.net.net
        assert ping_all_pairs(net, lab.fabric) == []
        paths = lab.ask("paths", src="h1", dst="h16")
        assert len(paths) == 8  # 4 cores per plane
        lab.set_link("p1c1", "p1a7", up=False)
        event = _wait_event(lab, 0, "down")
        assert event is not None
        assert len(lab.ask("paths", src="h1", dst="h16")) == 7
        assert ping_all_pairs(net, lab.fabric) == []
