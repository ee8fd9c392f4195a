"""Ping output parsing and stale-run bookkeeping (no root needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from mrclab.fabric.spec import parse_spec
from mrclab.fabric.topology_file import TopologyFile, write_topology
from mrclab.lab.cleanup import _cmdline, kill_recorded_processes, stale_interfaces
from mrclab.mininet.traffic import parse_ping


def test_parse_ping_summary():
    out = ("--- 10.0.3.4 ping statistics ---\n"
           "120 packets transmitted, 117 received, 2.5% packet loss, time 6000ms\n")
    result = parse_ping(out)
    assert (result.sent, result.received, result.lost) == (120, 117, 3)
    assert result.loss_pct == pytest.approx(2.5)
    with pytest.raises(ValueError, match="no ping summary"):
        parse_ping("connect: Network is unreachable")


def test_stale_interfaces_come_from_the_previous_topology(tmp_path):
    path = tmp_path / "topology.json"
    write_topology(path, TopologyFile(parse_spec("leafspine:leaves=2,spines=1,hosts=1"),
                                      "p4emu"))
    assert sorted(stale_interfaces(path)) == ["l1-eth1", "l1-eth2", "l2-eth1", "l2-eth2",
                                              "s1-eth1", "s1-eth2"]
    path.write_text(json.dumps({"switches": "garbage"}))
    assert stale_interfaces(path) == []
    assert stale_interfaces(tmp_path / "missing.json") == []


def test_only_recorded_processes_that_look_like_ours_are_killed(tmp_path):
    # a process whose command line does not look like a switch/controller is left alone
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"],
                                 start_new_session=True)
    ours = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)",
                             "p4emu-switch-marker"], start_new_session=True)
    try:
        deadline = time.monotonic() + 5
        while "marker" not in _cmdline(ours.pid) and time.monotonic() < deadline:
            time.sleep(0.01)  # the child may not have exec'd yet
        (tmp_path / "bystander.pid").write_text(f"{bystander.pid}\n")
        (tmp_path / "e1.pid").write_text(f"{ours.pid}\n")
        (tmp_path / "junk.pid").write_text("not a pid\n")
        killed = kill_recorded_processes(tmp_path)
        assert killed == ["e1"]
        assert ours.wait(timeout=5) != 0
        assert bystander.poll() is None
        assert list(tmp_path.glob("*.pid")) == []
    finally:
        for proc in (bystander, ours):
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
                proc.wait()
