"""`mrclab shell` on a running lab: p4runtime-shell reads a switch while the lab's
controller stays primary (MRCLAB_TARGET: p4emu or BMv2)."""

from __future__ import annotations

import subprocess

import pytest

from mrclab.fabric.generators import PortBases
from mrclab.fabric.spray import SPRAY_MODES
from mrclab.lab.lab import Lab, LabConfig
from tests.paths import REPO_ROOT
from tests.targets import integration_target

pytestmark = pytest.mark.integration
TARGET = integration_target()

# Typed at the shell's prompt: read one table and the groups, then try a write.
SESSION = """\
print("DOWNLINK", len(list(TableEntry("MrcIngress.downlink").read())))
print("GROUPS", len(list(ActionProfileGroup("MrcIngress.uplink_selector").read())))
te = TableEntry("MrcIngress.downlink")(action="MrcIngress.forward")
te.match["hdr.ipv4.dstAddr"] = "10.9.9.0/24"
te.action["port"] = "1"
te.insert()
"""


def test_shell_reads_a_switch_and_leaves_the_controller_primary(tmp_path):
    with Lab(LabConfig(spec="leafspine:leaves=2,spines=2,hosts=1", target=TARGET,
                       build_dir=tmp_path, bases=PortBases(grpc=51400, thrift=10400))) as lab:
        lab.start()
        leaf = sorted(n for n, sw in lab.fabric.switches.items() if sw.role == "leaf")[0]
        result = subprocess.run(
            [".venv/bin/mrclab", "shell", leaf, "--build-dir", str(tmp_path)],
            input=SESSION, capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
        out = result.stdout + result.stderr
        print("\n".join(line for line in out.splitlines()
                        if any(k in line for k in ("DOWNLINK", "GROUPS", "p4runtime-shell"))))
        assert "backup" in out
        downlinks = int(out.split("DOWNLINK ")[1].split()[0])
        attached = sum(1 for h in lab.fabric.hosts.values() for nic in h.nics
                       if nic.switch == leaf)
        assert downlinks == attached  # one downlink route per host on this leaf
        assert int(out.split("GROUPS ")[1].split()[0]) >= 1
        assert "PERMISSION_DENIED" in out  # a backup's write is refused
        # the controller is still primary: it writes the new spray mode everywhere
        lab.ask("spray", mode="ev")
        assert lab.status().spray_mode == SPRAY_MODES["ev"]
        log = (tmp_path / "logs" / "controller.log").read_text()
        assert "lost primary" not in log
