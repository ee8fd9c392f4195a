"""The experiments `mrclab experiment NAME` knows, in the order `all` runs them, and what
the runner asks of each (`Experiment`)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from mrclab.experiments.config import ExperimentError, Options, Setup

if TYPE_CHECKING:
    from mrclab.experiments.plans import Flow
    from mrclab.experiments.validity import Verdict
    from mrclab.fabric.model import Fabric

NAMES = ("permutation", "incast", "failure", "planes", "signals", "failover", "collective")


class Experiment(Protocol):
    """An experiment module. `run` drives a session (the lab's or the simulator's) and
    returns its raw results, whose shape is the module's own: the runner reads them only
    through the module (`verdicts`, `analyse`) and writes them to results.json."""

    NAME: str
    TITLE: str  # the report's heading; the module's docstring is its question
    ENGINES: tuple[str, ...]
    MODES: tuple[str, ...]  # what --modes may choose from (none: it has no modes)
    __doc__: str | None

    def setup(self, opts: Options) -> Setup: ...

    def traffic(self, setup: Setup, fabric: Fabric, seconds: float) -> list[Flow]:
        """The flows of one phase sized to last `seconds` (--rate auto calibrates on them)."""

    def run(self, session: Any, setup: Setup) -> dict: ...

    def verdicts(self, raw: dict) -> list[Verdict]:
        """The verdict of every traffic phase in `raw`, in the order they ran."""

    def analyse(self, setup: Setup, raw: dict) -> dict: ...

    def goals(self, setup: Setup, analysis: dict) -> list[dict]: ...

    def figures(self, analysis: dict, outdir: Path) -> list[tuple[str, str]]: ...

    def tables(self, analysis: dict) -> dict[str, list[dict]]: ...

    def sweep_figures(self, analysis: dict) -> dict[str, float | None]: ...


def get(name: str) -> Experiment:
    if name not in NAMES:
        raise ExperimentError(f"unknown experiment {name!r} (known: {', '.join(NAMES)}, all)")
    return cast(Experiment, importlib.import_module(f"mrclab.experiments.{name}"))
