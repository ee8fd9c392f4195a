"""Reading flows' records (`mrclab.experiments.records.FlowRecord`: the sender's report and
timeline) into plain series relative to the run's common start. Pure."""

from __future__ import annotations

from collections.abc import Callable

from mrclab.endpoint.report import SenderCounters
from mrclab.experiments import metrics
from mrclab.experiments.records import FlowRecord

MIN_WINDOW_S = 0.1  # the lab's: a shorter window holds too few of its samples


def acked_series(flow: FlowRecord, t0: float) -> list[tuple[float, float]]:
    """(seconds since t0, bytes acknowledged) samples of a flow; starts at (0, 0)."""
    samples = flow.timeline.column("acked_bytes")
    if not samples:
        return []
    out = [(0.0, 0.0)]
    for t, acked in samples:
        if t - t0 > out[-1][0]:
            out.append((t - t0, acked))
    return out


def column(flow: FlowRecord, t0: float, name: str) -> list[tuple[float, float]]:
    """(seconds since t0, value) of one timeline field (cwnd, ecn_echoes, qmax, ...)."""
    return [(t - t0, v) for t, v in flow.timeline.column(name)]


def finish_time(flow: FlowRecord, t0: float) -> float | None:
    """Seconds from t0 until the flow's last byte was acknowledged (None: it failed)."""
    start, done = flow.timeline.sender_start, flow.sender.completion_time_s
    if not flow.ok or start is None or done is None:
        return None
    return start + done - t0


def nothing_transferred(flows: list[FlowRecord]) -> str | None:
    """Why a run in which every transfer failed (a broken endpoint, an unreachable fabric)
    is no result at all, or None when at least one succeeded."""
    if not flows or any(f.ok for f in flows):
        return None
    first = flows[0]
    error = first.sender.error or "no summary written"
    return f"all {len(flows)} transfers failed ({first.src}: {error})"


def sender_total(flows: list[FlowRecord], count: Callable[[SenderCounters], int]) -> int:
    """The sum over the flows' senders of one of their counters."""
    return sum(count(f.sender.counters) for f in flows)


def retirement_times(flow: FlowRecord, t0: float) -> list[float]:
    """Seconds since t0 at which the flow's sender retired an EV."""
    start = flow.timeline.sender_start
    if start is None:
        return []
    return [start + r.time - t0 for r in flow.sender.pool.evs_retired]


def window_goodputs(flows: list[FlowRecord], t0: float, warmup: float,
                    min_window: float = MIN_WINDOW_S
                    ) -> tuple[list[float | None], tuple[float, float] | None]:
    """Goodput (b/s) of each flow while all of them ran: from `warmup` after t0 to the first
    finish. None for a flow without a timeline; the window is None when it is shorter than
    `min_window`."""
    series = [acked_series(f, t0) for f in flows]
    ends = [finish_time(f, t0) for f in flows]
    ends = [e for e in ends if e is not None]
    last = [s[-1][0] for s in series if s]
    end = min(ends) if ends else (min(last) if last else None)
    if end is None or end <= warmup + min_window:
        return [None] * len(flows), None
    return ([metrics.window_rate(s, warmup, end) if s else None for s in series],
            (warmup, end))
