"""The controller's JSON-lines control socket, end to end over a real Unix socket."""

from __future__ import annotations

import threading
import time

import pytest

from mrclab.control.protocol import ControlClientError, request
from mrclab.control.status import ControllerStatus
from mrclab.controller.control_server import ControlServer
from mrclab.controller.fabric import FabricController
from mrclab.controller.switch_state import ForwardingPolicy
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.topology_file import TopologyFile
from tests.unit.controller.fake_switch import FakeSession


@pytest.fixture
def served(p4info, tmp_path):
    topo = TopologyFile(fabric=parse_spec("fattree:k=4"), target="p4emu")
    ctl = FabricController(topo, p4info, b"cfg", ForwardingPolicy(), election_id=1,
                           session_factory=FakeSession, probe_interval=10)
    server = ControlServer(tmp_path / "ctl.sock", ctl)
    server.start()
    ctl.start()
    deadline = time.monotonic() + 5
    while not ctl.ready.is_set() and time.monotonic() < deadline:
        time.sleep(0.01)
    yield tmp_path / "ctl.sock", ctl
    server.close()
    ctl.stop()


def test_status_paths_spray(served):
    path, ctl = served
    status = ControllerStatus.from_json(request(path, "status"))
    assert status.ready and status.missing == [] and status.entries > 0
    assert set(status.switches) == set(ctl.fabric.switches)
    assert all(s.primary and s.synced and s.connects == 1 for s in status.switches.values())
    paths = request(path, "paths", src="h1", dst="h16")
    assert len(paths) == 4
    assert paths[0][0] == "e1:1>3"
    assert request(path, "spray", mode="ev") == {"updates": 20}
    assert ControllerStatus.from_json(request(path, "status")).spray_mode == 1
    request(path, "link_command", a="c1", b="a1", time=123.0)
    assert request(path, "reconvergence") == []


@pytest.mark.parametrize("cmd,args,message", [
    ("spray", {"mode": "fastest"}, "unknown spray mode 'fastest'"),
    ("counters", {"switch": "zz9"}, "unknown switch 'zz9'"),
    ("paths", {"src": "h1", "dst": "h99"}, "unknown host 'h99'"),
    ("reboot", {}, "unknown command 'reboot'"),
])
def test_bad_requests_are_reported(served, cmd, args, message):
    path, _ = served
    with pytest.raises(ControlClientError, match=message):
        request(path, cmd, **args)


def test_a_burst_of_clients_queues_until_the_server_accepts(p4info, tmp_path):
    """Clients connecting before the server accepts wait in its backlog (a failing plane
    reports 8 links at once); none is refused."""
    topo = TopologyFile(fabric=parse_spec("fattree:k=4"), target="p4emu")
    ctl = FabricController(topo, p4info, b"cfg", ForwardingPolicy(), election_id=1,
                           session_factory=FakeSession, probe_interval=10)
    server = ControlServer(tmp_path / "ctl.sock", ctl)  # listening, not yet accepting
    results: list[object] = []

    def ask(i: int) -> None:
        try:
            results.append(request(tmp_path / "ctl.sock", "link_command", timeout=10,
                                   a="c1", b="a1", time=float(i)))
        except ControlClientError as exc:
            results.append(exc)

    clients = [threading.Thread(target=ask, args=(i,)) for i in range(16)]
    for t in clients:
        t.start()
    time.sleep(0.3)
    server.start()
    for t in clients:
        t.join(15)
    server.close()
    refused = [r for r in results if isinstance(r, ControlClientError)]
    assert len(results) == 16 and not refused, refused[:1]


def test_unreachable_controller(tmp_path):
    with pytest.raises(ControlClientError, match="unreachable"):
        request(tmp_path / "nobody.sock", "status")


def test_a_malformed_status_reply_is_one_line_naming_it():
    with pytest.raises(ValueError, match="without entries"):
        ControllerStatus.from_json({"ready": True, "ready_s": 1.0, "spray_mode": 0})
    with pytest.raises(ValueError, match=r"ControllerStatus.switches: \['e1'\]: SwitchStatus record without synced, connects"):
        ControllerStatus.from_json({"ready": True, "ready_s": 1.0, "spray_mode": 0,
                                    "entries": 3, "switches": {"e1": {"primary": True}}})
    with pytest.raises(ValueError, match="not an object"):
        ControllerStatus.from_json(["ready"])
