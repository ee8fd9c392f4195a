"""Switch command lines, target resolution and the mrclab CLI's input errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from topologies.cli import main
from topologies.p4switch import QueueOptions, switch_command
from topologies.target import resolve_target


def test_p4emu_and_bmv2_take_the_same_flags():
    ports = {2: "e1-eth2", 1: "e1-eth1"}
    common = dict(device_id=3, ports=ports, grpc_port=50102, thrift_port=9102, cpu_port=255,
                  log_file=Path("/b/logs/e1.log"), pcap_dir=None, queues=QueueOptions())
    emu = switch_command("p4emu", **common)
    bmv2 = switch_command("bmv2", **common)
    assert emu[:4] == [sys.executable, "-m", "p4emu", "switch"]
    assert bmv2[0] == "simple_switch_grpc"
    for cmd in (emu, bmv2):
        assert cmd[cmd.index("--device-id") + 1] == "3"
        assert "-i" in cmd and "1@e1-eth1" in cmd and "2@e1-eth2" in cmd
        assert cmd.index("1@e1-eth1") < cmd.index("2@e1-eth2")
        assert "--no-p4" in cmd
        tail = cmd[cmd.index("--"):]
        assert tail == ["--", "--grpc-server-addr", "127.0.0.1:50102", "--cpu-port", "255",
                        "--priority-queues", "2"]


def test_queue_options_and_pcap():
    cmd = switch_command("p4emu", 1, {1: "l1-eth1"}, 1, 2, 255, Path("x.log"), Path("/pcap"),
                         QueueOptions(depth=32, rate_pps=1000, line_rate_bps=10**7))
    assert cmd[cmd.index("--pcap") + 1] == "/pcap"
    assert cmd[cmd.index("--queue-depth") + 1] == "32"
    assert cmd[cmd.index("--queue-rate") + 1] == "1000"
    assert cmd[cmd.index("--line-rate") + 1] == "10000000"


def test_target_resolution(monkeypatch):
    assert resolve_target("p4emu") == "p4emu"
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert resolve_target("auto") == "p4emu"
    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}")
    assert resolve_target("auto") == "bmv2"
    with pytest.raises(ValueError, match="unknown target 'tofino'"):
        resolve_target("tofino")


@pytest.mark.parametrize("argv,message", [
    (["run", "--topo", "fattree:k=5"], "k=5"),
    (["run", "--topo", "mesh:n=3"], "unknown topology 'mesh'"),
    (["run", "--topo", "leafspine:leaves=2,spines=2,hosts=0"], "hosts=0"),
    (["run", "--spray", "fast"], "invalid choice: 'fast'"),
    (["run", "--script", "/nonexistent/file"], "script /nonexistent/file not found"),
    (["launch"], "invalid choice: 'launch'"),
])
def test_cli_input_errors_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        sys.exit(main(argv))
    assert info.value.code != 0
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
