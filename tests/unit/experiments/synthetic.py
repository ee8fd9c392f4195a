"""Synthetic flow records shaped like `experiments.live.flows.run_flows` returns them."""

from __future__ import annotations

from experiments.transfer import SAMPLE_FIELDS

T0 = 1_000_000.0  # wall time of the common start


def flow(src: str, dst: str, rate_bps: float, seconds: float, *, stall=None, size=None,
         step: float = 0.05, timeouts: int = 0, retirements=(), start: float = 0.0) -> dict:
    """A flow acknowledged at `rate_bps` from `start` for `seconds` of sending, with no
    progress during `stall` = (from, to) seconds after T0."""
    samples, acked, t = [], 0.0, start
    end = start + seconds + (stall[1] - stall[0] if stall else 0.0)
    while t <= end + 1e-9:
        samples.append([T0 + t, int(acked), 10.0, 0, 0, 0, timeouts, 4, 0])
        if not (stall and stall[0] <= t < stall[1]):
            acked += rate_bps / 8 * step
        t = round(t + step, 6)
    size = size or int(acked)
    return {"src": src, "dst": dst, "size": size, "start": start, "planes": [],
            "sender": {"ok": True, "completion_time_s": end - start, "timeouts": timeouts,
                       "retransmits": timeouts, "nacks": 0, "ecn_echoes": 0,
                       "data_packets_sent": size // 1432 + 1, "max_qmax": 4,
                       "evs_retired": [{"time": r - start, "plane": 0, "ev": 1}
                                       for r in retirements]},
            "timeline": {"sender_start": T0 + start, "fields": list(SAMPLE_FIELDS),
                         "samples": samples}}


def verdict(faithful: bool = True) -> dict:
    return {"faithful": faithful, "reasons": [] if faithful else ["CPU 99% busy"],
            "cpu_busy": 0.5, "cpu_nice": 0.1, "backlog_p95_bytes": 0.0,
            "backlog_max_bytes": 0, "ingress_loss_share": 0.0, "load_average": [1, 1, 1]}


def run(flows: list[dict], counters=None, receivers=None, end: float | None = None) -> dict:
    return {"name": "x", "t0": T0, "end": T0 + (end or 10.0), "flows": flows,
            "receivers": receivers or {}, "counters": counters or {},
            "machine": {}, "verdict": verdict()}
