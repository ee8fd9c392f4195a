"""The experiments `mrclab experiment NAME` knows, in the order `all` runs them."""

from __future__ import annotations

import importlib
from types import ModuleType

from experiments.config import ExperimentError

NAMES = ("permutation", "incast", "failure", "planes", "signals")


def get(name: str) -> ModuleType:
    if name not in NAMES:
        raise ExperimentError(f"unknown experiment {name!r} (known: {', '.join(NAMES)}, all)")
    return importlib.import_module(f"experiments.{name}")
