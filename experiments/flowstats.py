"""Reading one flow's record (sender summary + timeline, as `live.flows` returns it) into
plain series relative to the run's common start. Pure."""

from __future__ import annotations

from experiments import metrics

MIN_WINDOW_S = 0.1  # the lab's: a shorter window holds too few of its samples


def acked_series(flow: dict, t0: float) -> list[tuple[float, float]]:
    """(seconds since t0, bytes acknowledged) samples of a flow; starts at (0, 0)."""
    timeline = flow.get("timeline") or {}
    fields = timeline.get("fields") or []
    samples = timeline.get("samples") or []
    if not samples or "acked_bytes" not in fields:
        return []
    ti, ai = fields.index("time"), fields.index("acked_bytes")
    out = [(0.0, 0.0)]
    for row in samples:
        t = row[ti] - t0
        if t > out[-1][0]:
            out.append((t, float(row[ai])))
    return out


def column(flow: dict, t0: float, name: str) -> list[tuple[float, float]]:
    """(seconds since t0, value) of one timeline field (cwnd, ecn_echoes, qmax, ...)."""
    timeline = flow.get("timeline") or {}
    fields = timeline.get("fields") or []
    if name not in fields:
        return []
    ti, ci = fields.index("time"), fields.index(name)
    return [(row[ti] - t0, float(row[ci])) for row in timeline.get("samples") or []]


def finish_time(flow: dict, t0: float) -> float | None:
    """Seconds from t0 until the flow's last byte was acknowledged (None: it failed)."""
    sender = flow.get("sender") or {}
    start = (flow.get("timeline") or {}).get("sender_start")
    done = sender.get("completion_time_s")
    if not sender.get("ok") or start is None or done is None:
        return None
    return start + done - t0


def ok(flow: dict) -> bool:
    return bool((flow.get("sender") or {}).get("ok"))


def nothing_transferred(flows: list[dict]) -> str | None:
    """Why a run in which every transfer failed (a broken endpoint, an unreachable fabric)
    is no result at all, or None when at least one succeeded."""
    if not flows or any(ok(f) for f in flows):
        return None
    first = flows[0]
    error = (first.get("sender") or {}).get("error") or "no summary written"
    return f"all {len(flows)} transfers failed ({first['src']}: {error})"


def sender_total(flows: list[dict], key: str) -> int:
    return sum(int((f.get("sender") or {}).get(key) or 0) for f in flows)


def retirement_times(flow: dict, t0: float) -> list[float]:
    """Seconds since t0 at which the flow's sender retired an EV."""
    sender = flow.get("sender") or {}
    start = (flow.get("timeline") or {}).get("sender_start")
    if start is None:
        return []
    return [start + r["time"] - t0 for r in sender.get("evs_retired") or []]


def window_goodputs(flows: list[dict], t0: float, warmup: float,
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
