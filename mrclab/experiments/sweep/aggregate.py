"""Aggregating a sweep (pure): per configuration the mean, standard deviation, 95 %
confidence interval and count of every figure the experiment reports for sweeps, over the
faithful runs only."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

# Student's t, 97.5th percentile, by degrees of freedom (two-sided 95 % interval)
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
         2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
         2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


@dataclass(slots=True)
class SweepRecord:
    """One point's run as its worker reports it: returned over Dask and written beside the
    run's outputs (`sweep-run.json`, `to_json` of this), where a later invocation reads it
    back (`from_json`) to skip the run."""

    key: str
    config: dict[str, Any]  # the varied values but the seed
    seed: int
    host: str = ""
    pid: int | None = None
    error: str | None = None  # the run failed: why
    faithful: bool | None = None
    figures: dict[str, float | None] = field(default_factory=dict)  # `sweep_figures`
    seconds: float | None = None


def t975(df: int) -> float:
    if df < 1:
        raise ValueError("an interval needs two samples")
    if df <= len(_T975):
        return _T975[df - 1]
    return 2.021 if df <= 40 else 2.000 if df <= 60 else 1.980 if df <= 120 else 1.960


def summarise(values: list[float]) -> dict:
    """n, mean, std, and the 95 % interval's half-width (None below two samples)."""
    n = len(values)
    if not n:
        return {"n": 0, "mean": None, "std": None, "ci95": None}
    mean = statistics.fmean(values)
    if n < 2:
        return {"n": 1, "mean": mean, "std": None, "ci95": None}
    std = statistics.stdev(values)
    return {"n": n, "mean": mean, "std": std, "ci95": t975(n - 1) * std / math.sqrt(n)}


def aggregate(runs: list[SweepRecord]) -> list[dict]:
    """One row per (config, figure) over the faithful runs that measured it."""
    groups: dict[str, tuple[dict, dict[str, list[float]]]] = {}
    for run in runs:
        if run.error or not run.faithful:
            continue
        key = repr(sorted(run.config.items()))
        config, figures = groups.setdefault(key, (run.config, {}))
        for name, value in run.figures.items():
            if value is not None:
                figures.setdefault(name, []).append(float(value))
    rows = []
    for config, figures in groups.values():
        for name, values in sorted(figures.items()):
            rows.append({**config, "figure": name, **summarise(values)})
    return rows


def counts(runs: list[SweepRecord]) -> dict[str, int]:
    return {"runs": len(runs), "failed": sum(1 for r in runs if r.error),
            "faithful": sum(1 for r in runs if not r.error and r.faithful),
            "unfaithful": sum(1 for r in runs if not r.error and not r.faithful)}
