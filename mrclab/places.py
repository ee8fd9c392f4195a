"""Where the lab's files live: the package's own files, the build directory, the runtime
directory.

Pure standard library, so every part may ask (the controller, the lab, experiments,
exercises, scripts and tests). Nothing here assumes a checkout: the P4 programs and the
exercises are package data, found through `importlib.resources`, so an installed wheel
runs from any directory.
"""

from __future__ import annotations

import hashlib
import os
from importlib import resources
from pathlib import Path


def package_file(relative: str) -> Path:
    """A file shipped inside the `mrclab` package, e.g. "p4src/mrc.p4"."""
    return Path(str(resources.files("mrclab").joinpath(relative)))


# where `import mrclab` finds the package, for children started with `python -m`
IMPORT_ROOT = package_file("").parent
# the fabric program both engines run unless told otherwise
FABRIC_PROGRAM = package_file("p4src/mrc.p4")


def default_build_dir() -> Path:
    """Compiled program, logs, topology file: $MRCLAB_BUILD_DIR, else ./build."""
    return Path(os.environ.get("MRCLAB_BUILD_DIR") or Path.cwd() / "build")


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
    """This process's environment with this `mrclab` first on PYTHONPATH, for the
    `python -m` children (switches, controller, workers): they import the same code as
    their parent, whether it was installed or imported from a checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(IMPORT_ROOT), env.get("PYTHONPATH")]))
    return env
