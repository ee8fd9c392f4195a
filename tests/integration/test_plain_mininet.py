"""The Topo classes work in plain Mininet, without the lab runner: a Mininet user builds
the network the usual way, starts the controller on the same spec's topology file, and
the fabric forwards (MRCLAB_TARGET: p4emu or BMv2)."""

from __future__ import annotations

import subprocess
import time

import pytest
from mininet.net import Mininet

from mrclab.control.command import controller_command
from mrclab.control.protocol import ControlClientError, request
from mrclab.fabric.generators import PortBases
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.topology_file import TopologyFile, write_topology
from mrclab.lab.target import compile_program
from mrclab.mininet.p4switch import P4Switch
from mrclab.mininet.topos import FabricTopo
from tests.paths import REPO_ROOT
from tests.targets import integration_target

from .waiting import wait_for

pytestmark = pytest.mark.integration
TARGET = integration_target()
SPEC = "leafspine:leaves=2,spines=2,hosts=2"


def _ready(sock) -> bool:
    try:
        return bool(request(sock, "status", timeout=2)["ready"])
    except ControlClientError:  # not listening yet
        return False


def test_plain_mininet_fabric_is_programmed_by_the_controller(tmp_path):
    fabric = parse_spec(SPEC, PortBases(grpc=51600, thrift=10600))
    program = compile_program(TARGET, tmp_path / "build")
    topology = tmp_path / "topology.json"
    write_topology(topology, TopologyFile(fabric, TARGET, p4info=str(program.p4info),
                                          device_config=str(program.device_config)))
    net = Mininet(topo=FabricTopo(fabric, switch_opts={
        "target": TARGET, "log_dir": tmp_path / "logs", "run_dir": tmp_path / "run"}),
        switch=P4Switch, controller=None, autoSetMacs=False, autoStaticArp=True)
    controller = None
    try:
        net.start()
        deadline = time.monotonic() + 30
        assert all(sw.wait_ready(deadline) for sw in net.switches)
        sock = tmp_path / "controller.sock"
        controller = subprocess.Popen(
            controller_command(topology, sock), cwd=REPO_ROOT,
            stdout=subprocess.DEVNULL, stderr=(tmp_path / "controller.log").open("w"))
        if not wait_for(lambda: _ready(sock), deadline + 30 - time.monotonic()):
            pytest.fail("controller not ready: " + (tmp_path / "controller.log").read_text()[-400:])
        h1 = net.get("h1")
        assert h1.IP() == fabric.hosts["h1"].nics[0].ip
        assert h1.MAC() == fabric.hosts["h1"].nics[0].mac
        assert net.pingAll(timeout="1") == 0
    finally:
        if controller is not None:
            controller.terminate()
            controller.wait(timeout=10)
        net.stop()
