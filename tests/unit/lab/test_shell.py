"""`mrclab shell`: the p4runtime-shell command line for a running lab's switch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mrclab.fabric.spec import parse_spec
from mrclab.fabric.topology_file import TopologyFile, write_topology
from mrclab.lab.shell import ShellError, shell_argv


@pytest.fixture
def topology(tmp_path):
    path = tmp_path / "topology.json"
    write_topology(path, TopologyFile(fabric=parse_spec("leafspine:leaves=2,spines=2,hosts=1"),
                                      target="p4emu"))
    return path


def test_attaches_to_the_switch_as_a_backup(topology):
    fabric = parse_spec("leafspine:leaves=2,spines=2,hosts=1")
    name = sorted(fabric.switches)[0]
    argv = shell_argv(topology, name)
    assert argv[1:3] == ["-m", "p4runtime_sh"]
    assert argv[argv.index("--grpc-addr") + 1] == fabric.switches[name].grpc_address
    assert argv[argv.index("--device-id") + 1] == str(fabric.switches[name].device_id)
    # (0, 1) is below every election id the controller uses (the clock in ms)
    assert argv[argv.index("--election-id") + 1] == "0,1"


def test_unknown_switch_names_the_switches_there_are(topology):
    with pytest.raises(ShellError, match=r"unknown switch 'x9'; this lab has .*l1"):
        shell_argv(topology, "x9")


def test_no_lab_and_a_bad_file_are_one_line_errors(tmp_path):
    with pytest.raises(ShellError, match="no running lab here"):
        shell_argv(tmp_path / "topology.json", "l1")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ShellError, match="not a lab topology file"):
        shell_argv(bad, "l1")


def test_cli_reports_a_missing_lab_in_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "mrclab", "shell", "e1",
                             "--build-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "no running lab here" in result.stderr
