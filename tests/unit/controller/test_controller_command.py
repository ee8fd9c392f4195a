"""The controller's command line as the lab builds it is the one the controller parses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mrclab.control.command import controller_args, controller_command
from mrclab.controller.__main__ import parse_args


def test_every_setting_reaches_the_controller():
    args = controller_args(spray="ev", trim_threshold=8, ecn_threshold=0, probe_interval=0.25,
                           miss_limit=4, ready_timeout=4)
    cmd = controller_command(Path("/b/topology.json"), Path("/r/controller.sock"), args)
    assert cmd[:3] == [sys.executable, "-m", "mrclab.controller"]
    parsed = parse_args(cmd[3:])
    assert (parsed.topology, parsed.control_socket) == ("/b/topology.json",
                                                         "/r/controller.sock")
    assert (parsed.spray, parsed.trim_threshold, parsed.ecn_threshold, parsed.probe_interval,
            parsed.miss_limit, parsed.ready_timeout) == ("ev", 8, 0, 0.25, 4, 4.0)


def test_unset_settings_leave_the_controller_defaults():
    assert controller_args() == []
    assert controller_args(trim_threshold=None, ecn_threshold=3) == ["--ecn-threshold", "3"]


def test_default_probe_interval_keeps_probes_within_the_budget():
    from mrclab.controller.link_monitor import PROBE_BUDGET_PER_S, default_probe_interval
    from mrclab.fabric.spec import parse_spec

    assert default_probe_interval(parse_spec("fattree:k=4")) == 0.05  # 32 links: 640/s
    for k in (6, 8):
        fabric = parse_spec(f"fattree:k={k}")
        interval = default_probe_interval(fabric)
        assert interval > 0.05
        assert len(fabric.fabric_links()) / interval == pytest.approx(PROBE_BUDGET_PER_S)
    assert default_probe_interval(parse_spec("fattree:k=8")) == pytest.approx(256 / 700)
