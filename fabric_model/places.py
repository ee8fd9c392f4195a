"""Where the lab's files live: the checkout, the build directory, the runtime directory.

Pure standard library, so every package may ask (the controller, the lab, experiments,
coursework, scripts and tests).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def default_build_dir() -> Path:
    """Compiled program, logs, topology file: $MRCLAB_BUILD_DIR, else build/ in the repo."""
    return Path(os.environ.get("MRCLAB_BUILD_DIR") or REPO_ROOT / "build")


def runtime_dir(build_dir: Path) -> Path:
    """Sockets and pid files of the lab using `build_dir`.

    Never inside the build directory: that may be a shared folder (a VM's /vagrant) that
    cannot hold Unix sockets, or too deep for a socket path (108 bytes). One directory per
    build directory, so a crashed run's leftovers are found by the next run that uses it.
    Base: $MRCLAB_RUN_DIR, else /run/mrclab (root), else $XDG_RUNTIME_DIR or /tmp."""
    key = hashlib.sha1(str(Path(build_dir).resolve()).encode()).hexdigest()[:12]
    return runtime_base() / key


def runtime_base() -> Path:
    """Where every lab's runtime directory lives (see `runtime_dir`)."""
    base = os.environ.get("MRCLAB_RUN_DIR")
    if not base:
        if os.geteuid() == 0 and os.access("/run", os.W_OK):
            base = "/run/mrclab"
        else:
            base = os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp",
                                f"mrclab-{os.geteuid()}")
    return Path(base)


def child_env() -> dict[str, str]:
    """This process's environment with the checkout first on PYTHONPATH, for the
    `python -m` children (switches, controller, workers) that import the project."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env
