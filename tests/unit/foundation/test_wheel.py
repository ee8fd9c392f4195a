"""The installed wheel runs outside a checkout: it holds the two packages and their data
(the P4 programs, the exercises), and `mrclab sim permutation --quick` runs from another
directory in a fresh venv that has only the wheel and its dependencies."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the work tree (setuptools builds in the source
    folder: a copy keeps its build/ and egg-info out of the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    src = tmp / "src"
    for rel in files:
        if (ROOT / rel).is_file() and not rel.startswith(("tests/", "docs/")):
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                           "--no-build-isolation", "-q", "-w", str(tmp / "dist"), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [built] = (tmp / "dist").glob("mrclab-*.whl")
    return built


def test_the_wheel_holds_two_packages_and_their_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"mrclab", "p4emu"}
    for data in ("mrclab/p4src/mrc.p4", "mrclab/p4src/headers.p4",
                 "mrclab/exercises/material/spray/checker.toml",
                 "mrclab/exercises/material/failover/solution/policy.py",
                 "p4emu/p4include/v1model.p4", "p4emu/p4include/core.p4",
                 "p4emu/native/rt/runtime.h", "p4emu/native/rt/tm.c", "p4emu/bench_l3.p4"):
        assert data in names, data


def test_a_fresh_venv_runs_a_simulated_experiment_from_elsewhere(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([venv / "bin" / "python", "-c",
                                "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the dependencies as installed for the project (a plain path entry: the project's
    # own editable install, a .pth hook there, is not processed from it)
    deps = sysconfig.get_path("purelib")
    (site / "deps.pth").write_text(f"{deps}\n/usr/lib/python3/dist-packages\n")
    with zipfile.ZipFile(wheel) as whl:
        whl.extractall(site)  # what pip does with a pure wheel, minus the scripts
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    check = subprocess.run([venv / "bin" / "python", "-c",
                            "import mrclab, p4emu; print(mrclab.__file__, p4emu.__file__)"],
                           cwd=elsewhere, capture_output=True, text=True, timeout=60)
    assert check.stdout.split() and all(path.startswith(str(site))
                                        for path in check.stdout.split()), check.stderr
    proc = subprocess.run([venv / "bin" / "python", "-m", "mrclab", "sim", "permutation",
                           "--quick", "--out", "out"], cwd=elsewhere, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    reports = list((elsewhere / "out").rglob("report.md"))
    assert reports and "ev" in reports[0].read_text()
