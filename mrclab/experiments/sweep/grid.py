"""The grid of a sweep (pure): seeds x parameter values, each point an `Options` of an
ordinary experiment run, named by a key that a later invocation recognises."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, fields, replace

from mrclab.experiments.config import ExperimentError, Options

# --param NAME: the experiment options a sweep may vary, and how a value is read
PARAMS: dict[str, type] = {"rate": str, "mtu": int, "spec": str, "queue_depth": int,
                           "trim": int, "ecn": int, "delay": str, "modes": str,
                           "senders": str, "target": str, "figures": str,
                           # the collective's training job
                           "pattern": str, "size": str, "ranks": int, "placement": str,
                           "slice": str, "iterations": int, "scenarios": str}
ALIASES = {"queue-depth": "queue_depth", "trim-threshold": "trim", "ecn-threshold": "ecn"}


def parse_seeds(text: str) -> list[int]:
    """'1-5,8,10-11' -> [1, 2, 3, 4, 5, 8, 10, 11]."""
    seeds: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        lo, sep, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ExperimentError(f"--seeds {text!r}: expected e.g. 1-20 or 1,3,5") from None
        if last < first:
            raise ExperimentError(f"--seeds {text!r}: empty range {part!r}")
        seeds += range(first, last + 1)
    if not seeds:
        raise ExperimentError(f"--seeds {text!r}: no seed")
    return sorted(set(seeds))


def parse_param(text: str) -> tuple[str, list]:
    """'trim=4,8,16' -> ('trim', [4, 8, 16]); one-line error naming what is wrong."""
    name, sep, values = text.partition("=")
    name = ALIASES.get(name.strip(), name.strip().replace("-", "_"))
    if not sep or name not in PARAMS:
        raise ExperimentError(f"--param {text!r}: expected NAME=V1,V2,... with NAME one of "
                              f"{', '.join(sorted(PARAMS))}")
    # modes, senders and scenarios take comma lists of their own: their values are
    # separated by '/'
    sep_values = "/" if name in ("modes", "senders", "scenarios") else ","
    raw = [v.strip() for v in values.split(sep_values) if v.strip()]
    if not raw:
        raise ExperimentError(f"--param {text!r}: no value")
    try:
        return name, [PARAMS[name](v) for v in raw]
    except ValueError:
        raise ExperimentError(f"--param {text!r}: {name} takes "
                              f"{PARAMS[name].__name__} values") from None


@dataclass(frozen=True)
class Point:
    """One run of the sweep: the options, the values that vary, and its key."""

    options: Options
    varied: dict  # parameter -> value (seed included)
    key: str

    @property
    def config(self) -> dict:
        """The varied values without the seed: runs with the same config are one sample."""
        return {k: v for k, v in self.varied.items() if k != "seed"}


def _apply(base: Options, name: str, value) -> Options:
    if name in ("modes", "scenarios"):
        return replace(base, **{name: tuple(m for m in value.split(",") if m)})
    if name == "senders":
        try:
            return replace(base, incast_n=tuple(int(n) for n in value.split(",")))
        except ValueError:
            raise ExperimentError(f"--param senders: bad sender counts {value!r}") from None
    return replace(base, **{name: value})


def expand(base: Options, seeds: list[int], params: list[tuple[str, list]],
           version: str) -> list[Point]:
    """Every combination of `params` for every seed, in a stable order; each key hashes the
    experiment, its options and `version` (the code's), so a run is found again by a later
    invocation of the same sweep on the same code and only then."""
    names = [name for name, _ in params]
    if len(set(names)) != len(names):
        raise ExperimentError(f"--param given twice: {', '.join(names)}")
    points = []
    for values in itertools.product(*[vals for _, vals in params]):
        for seed in seeds:
            opts = replace(base, seed=seed)
            varied = {}
            for name, value in zip(names, values, strict=True):
                opts = _apply(opts, name, value)
                varied[name] = value
            varied["seed"] = seed
            points.append(Point(opts, varied, run_key(opts, version)))
    return points


def run_key(opts: Options, version: str) -> str:
    data = {f.name: getattr(opts, f.name) for f in fields(Options) if f.name != "out"}
    text = json.dumps({"options": data, "version": version}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def describe(point: Point) -> str:
    return ", ".join(f"{k}={v}" for k, v in point.varied.items())

