"""Pure metric code: CDFs, fairness, goodput from cumulative samples, binning, recovery.

Everything here takes plain numbers and lists (no Mininet, no files), so it is unit-tested
on synthetic data. Times are seconds, rates bits per second, sizes bytes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def cdf(values: Sequence[float]) -> list[tuple[float, float]]:
    """Empirical CDF as step points (x, share of values <= x), x ascending, duplicates merged."""
    xs = sorted(values)
    n = len(xs)
    out: list[tuple[float, float]] = []
    for i, x in enumerate(xs):
        if out and out[-1][0] == x:
            out[-1] = (x, (i + 1) / n)
        else:
            out.append((x, (i + 1) / n))
    return out


def jain(values: Sequence[float]) -> float:
    """Jain's fairness index: 1 when all equal, 1/n when one value takes everything."""
    if not values:
        raise ValueError("jain: no values")
    square_sum = sum(v * v for v in values)
    if square_sum == 0:
        return 1.0  # all zero: equal, if useless
    return sum(values) ** 2 / (len(values) * square_sum)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 100]: rank (n - 1) q / 100 of the sorted
    values, interpolated between the two closest ranks."""
    if not values:
        raise ValueError("percentile: no values")
    return float(np.percentile(values, q, method="linear"))


def describe(values: Sequence[float]) -> dict[str, float]:
    """mean, min, p10, median, max and Jain fairness of `values`."""
    if not values:
        return {"n": 0}
    return {"n": len(values), "mean": sum(values) / len(values), "min": min(values),
            "p10": percentile(values, 10), "median": percentile(values, 50),
            "max": max(values), "jain": jain(values)}


def value_at(samples: Sequence[tuple[float, float]], t: float) -> float:
    """A cumulative counter at time `t`, interpolated linearly between samples (time-sorted);
    before the first sample it is the first value, after the last the last value."""
    return float(_interp(samples, t))


def _interp(samples: Sequence[tuple[float, float]], t: float | np.ndarray) -> np.ndarray:
    """value_at at one time or an array of times."""
    if not samples:
        raise ValueError("value_at: no samples")
    times, values = np.asarray(samples, dtype=float).T
    return np.interp(t, times, values)


def window_rate(samples: Sequence[tuple[float, float]], start: float, end: float) -> float:
    """Bits per second a cumulative byte counter grew by between `start` and `end`."""
    if end <= start:
        raise ValueError(f"window_rate: empty window {start}..{end}")
    return (value_at(samples, end) - value_at(samples, start)) * 8 / (end - start)


def bin_rates(samples: Sequence[tuple[float, float]], start: float, end: float,
              width: float) -> list[float]:
    """Bits per second of a cumulative byte counter in consecutive bins [start, end)."""
    if width <= 0:
        raise ValueError("bin width must be positive")
    count = max(0, int(round((end - start) / width)))
    edges = _interp(samples, start + np.arange(count + 1) * width)
    return (np.diff(edges) * 8 / width).tolist()


def recovery_time(bins: Sequence[float], width: float, start: float, fail_at: float,
                  baseline: float, fraction: float, until: float,
                  min_run: int = 2) -> float | None:
    """Seconds from `fail_at` to the end of the last outage before `until`: a run of at
    least `min_run` consecutive bins below `fraction` x `baseline` (a single low bin is
    sampling noise: a 50 ms bin holds a handful of packets). 0: no outage. None: still
    out in the last bin before `until` (not recovered by then).

    Bins are aligned at `start`; the resolution is one bin width. The bin holding the
    failure instant counts (part of it is after the failure)."""
    first = max(math.floor((fail_at - start) / width + 1e-9), 0)
    last = min(math.ceil((until - start) / width - 1e-9), len(bins))
    end, run = None, 0
    for i in range(first, last):
        run = run + 1 if bins[i] < fraction * baseline else 0
        if run >= min_run:
            end = i  # this outage reaches bin i
    if end is None:
        return 0.0
    if end == last - 1:
        return None
    return start + (end + 1) * width - fail_at


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def slowdown(fct: float, ideal: float) -> float:
    """Completion time as a multiple of the ideal."""
    if ideal <= 0:
        raise ValueError("ideal completion time must be positive")
    return fct / ideal


def link_utilisation(tx_bytes: int, seconds: float, rate_bps: float) -> float:
    """Share of a link's rate that `tx_bytes` (frame bytes) used over `seconds`."""
    if seconds <= 0 or rate_bps <= 0:
        raise ValueError("utilisation needs a positive duration and rate")
    return tx_bytes * 8 / seconds / rate_bps


def significant(x: float, digits: int = 4) -> float:
    """`x` to `digits` significant figures: table cells keep microseconds (the simulator's)
    as well as seconds (the lab's)."""
    return float(f"{x:.{digits}g}")


def time_unit(span_s: float) -> tuple[float, str]:
    """(factor, unit) to show times of about `span_s` seconds: the lab's seconds, the
    simulator's microseconds."""
    if span_s < 0.01:
        return 1e6, "us"
    return (1e3, "ms") if span_s < 1 else (1.0, "s")


def format_seconds(x: float | None) -> str:
    """`x` seconds in the unit that suits it: '1.25 s', '40 ms', '12.5 us'."""
    if x is None:
        return "never"
    size = abs(x)
    factor, unit = (1e6, "us") if 0 < size < 1e-3 else (1e3, "ms") if 0 < size < 1 \
        else (1.0, "s")
    return f"{x * factor:.3g} {unit}"


def rate_unit(bps: float) -> tuple[float, str]:
    """(divisor, unit) for rates around `bps`."""
    return (1e9, "Gb/s") if bps >= 1e9 else (1e6, "Mb/s")
