"""The controller's command line (`python -m mrclab.controller`), built from settings, for the
lab, experiments, exercises and tests that start it; the flags are those of
mrclab/controller/__main__.py (a unit test holds the two together)."""

from __future__ import annotations

import sys
from pathlib import Path


def controller_args(*, spray: str | None = None, trim_threshold: int | None = None,
                    ecn_threshold: int | None = None, probe_interval: float | None = None,
                    miss_limit: int | None = None, ready_timeout: float | None = None
                    ) -> list[str]:
    """The controller's options for these settings; None leaves the controller's default."""
    flags = {"--spray": spray, "--trim-threshold": trim_threshold,
             "--ecn-threshold": ecn_threshold, "--probe-interval": probe_interval,
             "--miss-limit": miss_limit, "--ready-timeout": ready_timeout}
    return [arg for flag, value in flags.items() if value is not None
            for arg in (flag, str(value))]


def controller_command(topology: Path, control_socket: Path, args: list[str] | None = None,
                       module: str = "mrclab.controller") -> list[str]:
    """The argv starting the controller (or a module wrapping it, as the exercises' does)
    on `topology`, serving `control_socket`."""
    return [sys.executable, "-m", module, "--topology", str(topology),
            "--control-socket", str(control_socket), *(args or [])]
