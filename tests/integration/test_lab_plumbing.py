"""The integration fixture layer itself: namespaces, veths, Mininet and their cleanup."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from mrclab.mininet.traffic import parse_ping

from .lab import PREFIX, ip
from .waiting import wait_for


def _namespaces() -> set[str]:
    return {line.split()[0] for line in ip("netns", "list").stdout.splitlines() if line.split()}


def test_namespaces_talk_over_a_veth_and_vanish_after(lab, unique):
    a, b = lab.namespace(unique("a")), lab.namespace(unique("b"))
    va, vb = lab.veth(unique(f"{PREFIX}a"), unique(f"{PREFIX}b"), a, b)
    a.run("ip", "addr", "add", "10.99.0.1/24", "dev", va)
    b.run("ip", "addr", "add", "10.99.0.2/24", "dev", vb)
    out = a.run("ping", "-c", "2", "-W", "2", "-i", "0.2", "10.99.0.2").stdout
    assert parse_ping(out).received == 2, out
    lab.cleanup()
    assert a.name not in _namespaces() and b.name not in _namespaces()


def _live_members(pgid: int) -> list[int]:
    """Processes of group `pgid` still running (a killed orphan may stay a zombie until
    init reaps it)."""
    live = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            live.append(int(stat.parent.name))
    return live


def test_spawned_process_group_is_killed_at_cleanup(lab):
    # a leader and a child of its own: cleanup must stop the whole group, not the leader
    proc = lab.spawn(["sh", "-c", "sleep 300 & wait"])
    assert wait_for(lambda: len(_live_members(proc.pid)) == 2, 5), _live_members(proc.pid)
    lab.cleanup()
    assert proc.returncode == -signal.SIGTERM
    assert wait_for(lambda: not _live_members(proc.pid), 5), "a child outlived cleanup"


def test_mininet_network_pings_and_is_cleaned(mininet_net):
    from mininet.nodelib import LinuxBridge
    from mininet.topo import SingleSwitchTopo

    net = mininet_net(SingleSwitchTopo(k=3), switch=LinuxBridge)
    assert net.pingAll(timeout=2) == 0.0


def test_resources_are_removed_when_a_test_fails(tmp_path: Path):
    """Run a failing test in a child pytest; its namespace must be gone afterwards."""
    name = "failcase"
    test_file = tmp_path / "test_child.py"
    test_file.write_text(textwrap.dedent(f"""
        from tests.integration.lab import LabResources
        import pytest

        @pytest.fixture
        def lab():
            r = LabResources()
            yield r
            r.cleanup()

        def test_boom(lab):
            lab.namespace({name!r})
            lab.spawn(["sleep", "300"])
            assert False, "deliberate failure"
    """))
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(test_file), "--rootdir", str(tmp_path)],
                            cwd=root, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stdout
    assert "deliberate failure" in result.stdout
    assert f"{PREFIX}-{name}" not in _namespaces()
