"""`python -m p4emu fabric`: argument errors, and switches without ports in one process."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from p4emu.switch.fabric_main import USAGE, parse_fabric_args
from p4emu.switch.options import UsageError

from .test_switch_process import REPO, cli, free_port


def fabric(*switches: str, **kwargs) -> subprocess.Popen:
    argv = [arg for text in switches for arg in ("--switch", text)]
    return subprocess.Popen([sys.executable, "-m", "p4emu", "fabric", *argv], cwd=REPO,
                            stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.parametrize(("argv", "message"), [
    ([], USAGE),
    (["--switch"], "--switch needs a value: the arguments of one switch"),
    (["--switch", "--no-p4", "--frob"], f"unexpected argument '--frob'; {USAGE}"),
    (["--switch=--frob"], "--switch 1: unrecognized arguments: --frob"),
    (["--switch", "--device-id 7 --no-p4 --thrift-port 0"],
     "--switch 1 (device 7): --thrift-port 0 is not a TCP port"),
    (["--switch", "--no-p4 -i '1@a"], "--switch 1 \"--no-p4 -i '1@a\": No closing quotation"),
    (["--switch", "--device-id 1 --no-p4 -i 1@x --thrift-port 9001",
      "--switch", "--device-id 2 --no-p4 -i 1@x --thrift-port 9002"],
     "--switch 2 (device 2): interface x is also used by --switch 1 (device 1)"),
    (["--switch", "--no-p4 --thrift-port 9001 -- --grpc-server-addr 127.0.0.1:5",
      "--switch", "--no-p4 --thrift-port 9001 -- --grpc-server-addr 127.0.0.1:6"],
     "--switch 2: --thrift-port 9001 is also used by --switch 1"),
])
def test_bad_arguments_give_one_line_naming_the_switch(argv, message):
    with pytest.raises(UsageError) as info:
        parse_fabric_args(argv)
    assert str(info.value) == message


def test_bad_arguments_exit_2_with_one_line():
    proc = fabric("--device-id 3 --no-p4 --bogus")
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert err == "p4emu fabric: --switch 1 (device 3): unrecognized arguments: --bogus\n"


def test_a_switch_that_cannot_start_stops_the_others_exit_1():
    grpc_a, thrift_a, thrift_b = free_port(), free_port(), free_port()
    proc = fabric(f"--device-id 1 --no-p4 --thrift-port {thrift_a} -- "
                  f"--grpc-server-addr 127.0.0.1:{grpc_a}",
                  f"--device-id 2 --no-p4 --thrift-port {thrift_b} -i 1@no-such-if0 -- "
                  f"--grpc-server-addr 127.0.0.1:{free_port()}")
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert err.startswith("p4emu fabric: device 2: -i 1@no-such-if0: ")
    assert len(err.splitlines()) == 1


def port_open(port: int) -> bool:
    import socket
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_until(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_shutting_down_one_switch_leaves_the_other_then_sigterm_stops_all():
    grpc_a, grpc_b, thrift_a, thrift_b = (free_port() for _ in range(4))
    proc = fabric(*(f"--device-id {d} --no-p4 --thrift-port {t} -- "
                    f"--grpc-server-addr 127.0.0.1:{g}"
                    for d, g, t in ((1, grpc_a, thrift_a), (2, grpc_b, thrift_b))))
    try:
        assert wait_until(lambda: port_open(grpc_a) and port_open(grpc_b))
        out = cli(thrift_a, "shutdown")
        assert out.returncode == 0, out.stderr
        assert not port_open(grpc_a) and not port_open(thrift_a)
        assert port_open(grpc_b) and proc.poll() is None
        assert cli(thrift_b, "show_ports").returncode == 0
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.stderr.read() == ""


def test_the_process_ends_with_its_last_switch():
    grpc, thrift = free_port(), free_port()
    proc = fabric(f"--no-p4 --thrift-port {thrift} -- --grpc-server-addr 127.0.0.1:{grpc}")
    try:
        assert wait_until(lambda: port_open(grpc))
        assert cli(thrift, "shutdown").returncode == 0
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
