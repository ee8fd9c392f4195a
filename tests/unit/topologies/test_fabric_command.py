"""The lab's `p4emu fabric` command line: each switch's arguments reach it whole."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from p4emu.switch.fabric_main import parse_fabric_args
from p4emu.switch.options import parse_switch_args
from topologies.p4switch import FabricProcess, QueueOptions, switch_args


def fake_switch(name: str, device_id: int, ports: dict[int, str]) -> SimpleNamespace:
    args = switch_args("p4emu", device_id, ports, 50100 + device_id, 9100 + device_id, 255,
                       Path(f"/b/logs/{name} packets.log"), None,
                       QueueOptions(depth=32, high_priority_depth=500, line_rate_bps=4_000_000))
    return SimpleNamespace(args=lambda: args, log_file=Path(f"/b/logs/{name}.log"),
                           pid_file=Path(f"/run/x/{name}.pid"), grpc_port=50100 + device_id,
                           thrift_port=9100 + device_id)


def test_fabric_command_carries_each_switch_as_p4emu_switch_would_take_it():
    switches = [fake_switch("e1", 1, {1: "e1-eth1", 2: "e1-eth2"}),
                fake_switch("c1", 17, {1: "c1-eth1"})]
    fabric = FabricProcess(switches)  # type: ignore[arg-type]
    command = fabric.command()
    command = command[command.index(sys.executable):]  # after `nice` when root
    assert command[:4] == [sys.executable, "-m", "p4emu", "fabric"]
    parsed = parse_fabric_args(command[4:])
    assert parsed == [parse_switch_args(sw.args()) for sw in switches]
    assert parsed[0].log_file == "/b/logs/e1 packets.log"  # quoting survives
    assert (parsed[1].device_id, parsed[1].interfaces) == (17, {1: "c1-eth1"})
    assert fabric.log_file == Path("/b/logs/fabric.log")
    assert fabric.pid_file == Path("/run/x/fabric.pid")
