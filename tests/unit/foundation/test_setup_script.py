"""scripts/setup.sh refuses bad environments with one clear line and a non-zero exit."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SETUP = ROOT / "scripts" / "setup.sh"


def run_setup(env_extra: dict[str, str] | None = None, path: str | None = None,
              script: Path = SETUP, as_nobody: bool = False) -> subprocess.CompletedProcess:
    env = {"PATH": path or os.environ["PATH"], **(env_extra or {})}
    cmd = ["/bin/bash", str(script)]
    if as_nobody:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)


def assert_one_line_error(result: subprocess.CompletedProcess, needle: str) -> None:
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("setup.sh: ") and needle in lines[0]


def test_refuses_without_root():
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("setpriv missing: cannot drop root to test this")
        # The checkout may sit in a directory nobody cannot enter (a clone under /root,
        # pytest's 0700 tmp dirs): give nobody a copy in a world-readable place.
        with tempfile.TemporaryDirectory(prefix="mrclab-setup-", dir="/tmp") as tmp:
            os.chmod(tmp, 0o755)
            (Path(tmp) / "scripts").mkdir(mode=0o755)
            copy = Path(tmp) / "scripts" / "setup.sh"
            shutil.copyfile(SETUP, copy)
            copy.chmod(0o644)
            result = run_setup(script=copy, as_nobody=True)
    else:
        result = run_setup()
    assert_one_line_error(result, "must run as root")


@pytest.mark.skipif(os.geteuid() != 0, reason="the OS checks come after the root check")
def test_refuses_unsupported_os(tmp_path: Path):
    fake = tmp_path / "os-release"
    fake.write_text('ID=fedora\nVERSION_ID="40"\nPRETTY_NAME="Fedora Linux 40"\n')
    result = run_setup({"MRCLAB_OS_RELEASE": str(fake)})
    assert_one_line_error(result, "unsupported OS 'Fedora Linux 40'")


@pytest.mark.skipif(os.geteuid() != 0, reason="the apt check comes after the root check")
def test_refuses_without_apt(tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("id", "dirname", "cat", "sha256sum", "cut"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    result = run_setup(path=str(bin_dir))
    assert_one_line_error(result, "apt-get not found")


@pytest.mark.skipif(os.geteuid() != 0, reason="setup needs root")
def test_second_run_is_a_fast_no_op():
    first = run_setup()
    assert first.returncode == 0, first.stderr
    second = run_setup()
    assert second.returncode == 0, second.stderr
    assert "up to date" in second.stdout
