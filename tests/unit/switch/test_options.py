"""simple_switch_grpc command lines as Mininet P4 switch classes build them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from p4emu.switch import main as switch_main
from p4emu.switch.options import UsageError, parse_switch_args


def test_tutorial_style_command_line():
    opts = parse_switch_args([
        "-i", "1@s1-eth1", "-i", "2@s1-eth2", "--pcap", "/tmp/pcaps", "--thrift-port", "9091",
        "--nanolog", "ipc:///tmp/bm-0-log.ipc", "--device-id", "3", "--log-console",
        "--log-level", "debug", "build/basic.json", "--", "--grpc-server-addr",
        "127.0.0.1:50051", "--cpu-port", "255", "--priority-queues", "2"])
    assert opts.interfaces == {1: "s1-eth1", 2: "s1-eth2"}
    assert (opts.pcap_dir, opts.thrift_port, opts.device_id) == ("/tmp/pcaps", 9091, 3)
    assert (opts.program, opts.grpc_addr, opts.cpu_port) == ("build/basic.json",
                                                             "127.0.0.1:50051", 255)
    assert opts.log_console and opts.log_level == "debug" and opts.priority_queues == 2


def test_no_p4_with_queue_options_on_either_side():
    opts = parse_switch_args(["--no-p4", "--queue-depth", "16", "--line-rate", "1e9", "--",
                              "--queue-rate", "1000"])
    assert opts.no_p4 and opts.program is None
    assert (opts.queue_depth, opts.queue_rate, opts.line_rate) == (16, 1000, 1e9)
    assert opts.grpc_addr == "127.0.0.1:9559"  # loopback unless told otherwise


def test_priority_queue_depth_on_either_side():
    opts = parse_switch_args(["--no-p4", "--priority-queue-depth", "1=900", "--",
                              "--priority-queues", "3", "--priority-queue-depth", "2=50"])
    assert opts.priority_depths == {1: 900, 2: 50}


@pytest.mark.parametrize("argv,needle", [
    ([], "program"),
    (["--no-p4", "x.json"], "exclude"),
    (["--no-p4", "--", "--cpu-port", "0"], "--cpu-port 0"),
    (["--no-p4", "--", "--cpu-port", "511"], "--cpu-port 511"),
    (["--no-p4", "-i", "eth0"], "PORT@IFACE"),
    (["--no-p4", "-i", "1@a", "-i", "1@b"], "port 1"),
    (["--no-p4", "--log-level", "loud"], "loud"),
    (["--no-p4", "--", "--grpc-server-addr", "nohost"], "nohost"),
    (["--no-p4", "--", "--cpu-port", "3", "--bogus"], "--bogus"),
    (["--no-p4", "--priority-queues", "9"], "at most 8"),
    (["--no-p4", "--queue-depth", "0"], "'0'"),
    (["--no-p4", "--priority-queue-depth", "1:9"], "PRIO=DEPTH"),
    (["--no-p4", "--priority-queue-depth", "1=0"], "DEPTH >= 1"),
    (["--no-p4", "--priority-queue-depth", "1=9"], "priorities are 0..0"),
])
def test_bad_command_lines_name_the_input(argv, needle):
    with pytest.raises(UsageError, match=needle):
        parse_switch_args(argv)


def test_main_prints_one_line_and_fails(capsys):
    assert switch_main.main(["--no-p4", "--", "--cpu-port", "600"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--cpu-port 600" in err


def test_missing_program_file_is_one_line_error():
    proc = subprocess.run([sys.executable, "-m", "p4emu", "switch", "/nonexistent/prog.json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "p4emu switch: program /nonexistent/prog.json: no such file"
