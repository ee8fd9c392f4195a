"""Switch command lines, target resolution and the mrclab CLI's input errors."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mrclab.cli import main
from mrclab.endpoint.wire import ETH_IP_UDP_LEN, HEADER_LEN
from mrclab.lab.target import resolve_target
from mrclab.mininet.link_failure import nft_block_ruleset, table_name
from mrclab.mininet.p4switch import switch_command
from mrclab.mininet.queues import QueueOptions, bmv2_queue_commands, bmv2_rate_commands
from mrclab.mininet.rates import HEADER_PACKET_BYTES, bps_to_pps
from mrclab.places import runtime_dir


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


def test_switch_log_is_opt_in():
    common = dict(device_id=1, ports={1: "l1-eth1"}, grpc_port=1, thrift_port=2, cpu_port=255,
                  pcap_dir=None, queues=QueueOptions())
    for target in ("p4emu", "bmv2"):
        assert "--log-file" not in switch_command(target, log_file=None, **common)
    bmv2 = switch_command("bmv2", log_file=Path("/b/l1.packets.log"), **common)
    assert bmv2[bmv2.index("--log-file") + 1] == "/b/l1.packets.log" and "--log-flush" in bmv2
    assert "--log-level" not in bmv2


def test_bmv2_without_a_packet_log_formats_no_log_lines():
    # BMv2's level is trace by default, sink or not: every packet's lines were formatted
    cmd = switch_command("bmv2", 1, {1: "l1-eth1"}, 1, 2, 255, None, None, QueueOptions())
    assert cmd[cmd.index("--log-level") + 1] == "off"
    assert cmd.index("--log-level") < cmd.index("--")  # a switch option, not a target one


def test_bmv2_queue_settings_go_to_every_port_and_priority():
    cmds = bmv2_queue_commands(QueueOptions(depth=32, line_rate_bps=20_000_000), [1, 2])
    # 20 Mb/s of 1500-byte frames = 1666.7 packets/s
    assert bps_to_pps(20_000_000) == 1667
    # the header queue: 20 Mb/s of 68-byte packets (IP + UDP + MRC header)
    assert cmds == ["set_queue_depth 32 1 0", "set_queue_rate 1667 1 0",
                    "set_queue_depth 32 1 1", "set_queue_rate 36765 1 1",
                    "set_queue_depth 32 2 0", "set_queue_rate 1667 2 0",
                    "set_queue_depth 32 2 1", "set_queue_rate 36765 2 1"]
    # packets/s given explicitly wins over the converted line rate
    assert bmv2_queue_commands(QueueOptions(rate_pps=500, line_rate_bps=10**9), [3]) == \
        ["set_queue_rate 500 3 0", "set_queue_rate 500 3 1"]
    assert bmv2_queue_commands(QueueOptions(), [1, 2]) == []
    assert bps_to_pps(100) == 1  # never 0, which BMv2 reads as "no limit"


def test_high_priority_queues_get_their_own_depth_on_both_targets():
    queues = QueueOptions(depth=64, high_priority_depth=1181)
    assert bmv2_queue_commands(queues, [3]) == ["set_queue_depth 64 3 0",
                                                "set_queue_depth 1181 3 1"]
    cmd = switch_command("p4emu", 1, {1: "s1-eth1"}, 9559, 9090, 255, None, None, queues)
    i = cmd.index("--priority-queue-depth")
    assert cmd[i + 1] == "1=1181" and cmd[cmd.index("--queue-depth") + 1] == "64"


def test_jumbo_mtu_converts_bmv2_rates_at_its_frame_size():
    jumbo = QueueOptions(line_rate_bps=4_000_000, mtu=9000)
    assert jumbo.pps(4_000_000) == 56  # 4 Mb/s of 9000-byte frames = 55.6 packets/s
    assert bmv2_queue_commands(jumbo, [1]) == ["set_queue_rate 56 1 0",
                                               "set_queue_rate 7353 1 1"]
    for bad in (100, 9001):
        with pytest.raises(ValueError, match=f"MTU {bad} out of range"):
            QueueOptions(mtu=bad)


def test_link_failure_drops_egress_per_interface():
    assert table_name("c2-eth3") == "mrclab_fail_c2_eth3"
    rules = nft_block_ruleset("c2-eth3")
    assert rules.startswith("table netdev mrclab_fail_c2_eth3 ")
    assert 'hook egress device "c2-eth3"' in rules and "policy drop" in rules


def test_runtime_dir_is_outside_the_build_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("MRCLAB_RUN_DIR", str(tmp_path / "rt"))
    a, b = runtime_dir(tmp_path / "build"), runtime_dir(tmp_path / "other")
    assert a.parent == tmp_path / "rt" and a != b
    assert runtime_dir(tmp_path / "build") == a  # the next run finds the leftovers
    # a socket path must stay under 108 bytes however deep the build directory is
    assert len(str(runtime_dir(tmp_path / ("x" * 200)) / "controller.sock")) < 108


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
    with pytest.raises(ValueError, match="target bmv2 needs simple_switch_grpc, p4c-bm2-ss"):
        resolve_target("bmv2")
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
    (["run", "--target", "bmv2"], "install p4lang's BMv2"),
    (["run", "--link-failure", "unplug"], "invalid choice: 'unplug'"),
    (["run", "--mtu", "9001"], "MTU 9001 out of range 576..9000"),
])
def test_cli_input_errors_are_one_line(argv, message, capsys, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # no BMv2 tools, whatever this machine has
    with pytest.raises(SystemExit) as info:
        sys.exit(main(argv))
    assert info.value.code != 0
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_switch_ports_are_reserved_from_ephemeral_use(tmp_path):
    from mrclab.mininet.local_ports import reserve_local_ports

    sysctl = tmp_path / "ip_local_reserved_ports"
    sysctl.write_text("\n")
    reserve_local_ports([51400, 10400], sysctl)
    assert sysctl.read_text() == "10400,51400\n"
    sysctl.write_text("50000-51999,10400\n")
    reserve_local_ports([51400, 10400, 52000], sysctl)  # only what is not covered yet
    assert sysctl.read_text() == "50000-51999,10400,52000\n"
    reserve_local_ports([51500], tmp_path / "missing")  # no such sysctl: nothing to do


def test_bmv2_rate_commands_shape_data_at_the_mtu_and_headers_at_their_size():
    # an ACK shaped like a full frame took 1/56 s of a header queue that the reverse
    # flows' ACKs filled: RTTs of seconds on BMv2
    jumbo = QueueOptions(mtu=9000, priority_queues=3)
    assert bmv2_rate_commands(jumbo, 3, 4_000_000) == ["set_queue_rate 56 3 0",
                                                       "set_queue_rate 7353 3 1",
                                                       "set_queue_rate 7353 3 2"]
    assert HEADER_PACKET_BYTES == ETH_IP_UDP_LEN - 14 + HEADER_LEN  # the wire format's
    jumbo = QueueOptions(mtu=9000)
    assert bmv2_rate_commands(jumbo, 3, None) == ["set_queue_rate 0 3 0", "set_queue_rate 0 3 1"]
