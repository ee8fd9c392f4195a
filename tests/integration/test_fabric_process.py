"""`python -m p4emu fabric`: two switches in one process forward on real interfaces, and
shutting one down (a crash of one switch) leaves the other forwarding."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from mrclab.mininet.local_ports import port_open
from tests.integration.test_switch_netns import (
    PYTHON,
    REPO,
    _build,
    _free_port,
    _names,
    _teardown,
    in_ns,
    wait_for,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root for network namespaces"),
]

WIRE = REPO / "tests" / "p4" / "switch" / "wire.p4"


@pytest.fixture
def two_wires():
    """h1-h2 through one switch's ports, h3-h4 through the other's."""
    topo = _names(4)
    try:
        _build(topo, [(f"10.9.0.{i}/24", f"00:00:00:00:09:0{i}") for i in range(1, 5)])
        yield topo
    finally:
        _teardown(topo)


def ping(topo, src: int, dst: int) -> bool:
    result = in_ns(topo.namespaces[src - 1], "ping", "-c", "2", "-i", "0.2", "-W", "1",
                   f"10.9.0.{dst}", check=False)
    return result.returncode == 0


def test_fabric_forwards_and_one_switch_shut_down_leaves_the_other(two_wires, tmp_path: Path):
    ports = {name: _free_port() for name in ("grpc_a", "grpc_b", "thrift_a", "thrift_b")}
    ifaces = two_wires.switch_ifaces
    switches = [f"--device-id {d} -i 1@{ifaces[i]} -i 2@{ifaces[i + 1]} --thrift-port "
                f"{ports['thrift_' + x]} {WIRE} -- --grpc-server-addr 127.0.0.1:{ports['grpc_' + x]}"
                for d, i, x in ((1, 0, "a"), (2, 2, "b"))]
    log = (tmp_path / "fabric.log").open("w")
    proc = subprocess.Popen([PYTHON, "-m", "p4emu", "fabric",
                             *(arg for s in switches for arg in ("--switch", s))],
                            cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        assert wait_for(lambda: port_open(ports["grpc_a"]) and port_open(ports["grpc_b"]), 60)
        assert ping(two_wires, 1, 2) and ping(two_wires, 3, 4)
        result = subprocess.run([PYTHON, "-m", "p4emu", "cli", "--thrift-port",
                                 str(ports["thrift_a"]), "shutdown"], cwd=REPO,
                                capture_output=True, text=True, timeout=30)
        assert result.returncode == 0, result.stderr
        assert not port_open(ports["grpc_a"]) and not port_open(ports["thrift_a"])
        assert not ping(two_wires, 1, 2)
        assert ping(two_wires, 3, 4) and proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    assert "Traceback" not in (tmp_path / "fabric.log").read_text()
