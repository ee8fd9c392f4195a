"""The one place the integration tests' switch target is chosen: MRCLAB_TARGET."""

from __future__ import annotations

import os

TARGET_ENV = "MRCLAB_TARGET"
INTEGRATION_TARGETS = ("p4emu", "bmv2")


def integration_target() -> str:
    """p4emu (the default, and CI's) or bmv2 (`MRCLAB_TARGET=bmv2 sudo -E make integration`)."""
    return os.environ.get(TARGET_ENV) or "p4emu"
