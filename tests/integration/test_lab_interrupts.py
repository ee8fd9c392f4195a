"""Ctrl-C, SIGTERM and SIGKILL at any moment of a lab's life leave nothing behind: after
SIGINT or SIGTERM `mrclab run` stops the lab itself within seconds; after SIGKILL the
cleanup command (`python -m mrclab.lab.cleanup`, `make clean`) removes what it left; and the next
lab starts."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mrclab.places import child_env
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.integration

SCRIPT = "pingall\nsh sleep 30\n"  # bring-up, then a run long enough to interrupt


def leftovers(build: Path) -> dict[str, int]:
    """What of a lab in `build` still exists: its processes and switch interfaces."""
    # switch processes carry no path of the build in their command lines: any p4emu
    # switch or fabric process counts (the suite runs one lab at a time)
    procs = [p for p in psutil.process_iter(["cmdline"])
             if str(build) in (line := " ".join(p.info["cmdline"] or ()))
             or "mininet:" in line or " -m p4emu switch" in line or " -m p4emu fabric" in line]
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    intfs = [line for line in out.splitlines() if "-eth" in line.split(":")[1]]
    return {"processes": len(procs), "interfaces": len(intfs)}


def start_lab(build: Path, tmp: Path) -> subprocess.Popen:
    """`mrclab run` with its stderr in tmp/stderr: a file, not a pipe, since the script's
    `sleep` (the user's command, not the lab's) may outlive it holding the pipe open."""
    script = tmp / "slow.cli"
    script.write_text(SCRIPT)
    with (tmp / "stderr").open("w") as err:
        return subprocess.Popen([sys.executable, "-m", "mrclab", "run", "--topo",
                                 "fattree:k=4", "--target", "p4emu", "--script", str(script),
                                 "--build-dir", str(build)], cwd=REPO_ROOT, env=child_env(),
                                stdout=subprocess.DEVNULL, stderr=err)


@pytest.mark.parametrize("sig, after", [(signal.SIGTERM, 3.0), (signal.SIGINT, 8.0),
                                        (signal.SIGTERM, 22.0)])
def test_a_signal_at_any_moment_stops_the_lab_and_leaves_nothing(sig, after, tmp_path):
    build = tmp_path / "build"
    proc = start_lab(build, tmp_path)
    time.sleep(after)  # 3 and 8 s: bring-up; 22 s: the fabric runs its script
    proc.send_signal(sig)
    sent = time.monotonic()
    proc.wait(timeout=60)
    took = time.monotonic() - sent
    err = (tmp_path / "stderr").read_text()
    assert proc.returncode in (130, 143), err[-2000:]
    assert took < 20, f"{took:.1f} s to stop"
    assert "Traceback" not in err, err[-2000:]
    assert leftovers(build) == {"processes": 0, "interfaces": 0}


def test_after_sigkill_the_cleanup_command_removes_everything_and_a_lab_starts(tmp_path):
    build = tmp_path / "build"
    proc = start_lab(build, tmp_path)
    time.sleep(10)  # switches and interfaces exist by now
    proc.kill()
    proc.wait(timeout=10)
    left = leftovers(build)
    assert left["processes"] + left["interfaces"] > 0  # SIGKILL leaves them
    out = subprocess.run([sys.executable, "-m", "mrclab.lab.cleanup"], cwd=REPO_ROOT,
                         env=child_env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert leftovers(build) == {"processes": 0, "interfaces": 0}
    # the next lab in the same build directory comes up and reaches every host
    script = tmp_path / "ping.cli"
    script.write_text("pingall\n")
    run = subprocess.run([sys.executable, "-m", "mrclab", "run", "--topo", "fattree:k=4",
                          "--target", "p4emu", "--script", str(script), "--build-dir",
                          str(build)], cwd=REPO_ROOT, env=child_env(), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0 and "0% dropped" in run.stdout + run.stderr, run.stderr[-2000:]
