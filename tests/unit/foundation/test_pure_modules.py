"""The modules that say they are pure import without Mininet (each in a fresh interpreter),
so the controller, the simulator and the experiments' planning run where Mininet is not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _modules(*patterns: str) -> list[str]:
    paths = sorted({p for pattern in patterns for p in ROOT.glob(pattern)})
    return [".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for p in paths if p.name != "__main__.py"]


PURE = _modules(
    "mrclab/places.py", "mrclab/processes.py", "mrclab/jsonrecords.py", "mrclab/fabric/*.py", "mrclab/control/*.py", "mrclab/controller/*.py",
    "mrclab/sim/*.py", "mrclab/sim/pathmodel/*.py", "mrclab/endpoint/core/*.py",
    "mrclab/experiments/config.py", "mrclab/experiments/plans.py", "mrclab/experiments/metrics.py",
    "mrclab/experiments/sim_engine/session.py",
    "mrclab/mininet/mtu.py", "mrclab/mininet/rates.py", "mrclab/mininet/queues.py",
    "mrclab/mininet/switch_cli.py", "mrclab/mininet/local_ports.py",
)
CHECK = ("import importlib, sys\n"
         "importlib.import_module(sys.argv[1])\n"
         "sys.exit('mininet' in sys.modules)\n")


def test_the_list_finds_the_modules():
    assert {"mrclab.places", "mrclab.controller.fabric", "mrclab.experiments.config",
            "mrclab.sim.network", "mrclab.endpoint.core.sender"} <= set(PURE)


@pytest.mark.parametrize("module", PURE)
def test_imports_without_mininet(module):
    proc = subprocess.run([sys.executable, "-c", CHECK, module], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.strip() or f"importing {module} loads mininet"
