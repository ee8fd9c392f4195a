"""Synthetic phase records (`mrclab.experiments.records`), as a session's `run_flows` returns them."""

from __future__ import annotations

from mrclab.endpoint.core.receiver import ReceiverStats
from mrclab.endpoint.report import (
    EvPoolReport,
    ReceiverReport,
    Retirement,
    SenderCounters,
    SenderReport,
)
from mrclab.experiments.records import FlowRecord, PhaseRecord
from mrclab.experiments.transfer import SAMPLE_FIELDS, Timeline
from mrclab.experiments.validity import Verdict

T0 = 1_000_000.0  # wall time of the common start


def flow(src: str, dst: str, rate_bps: float, seconds: float, *, stall=None, size=None,
         step: float = 0.05, timeouts: int = 0, retirements=(), start: float = 0.0,
         rates: list[tuple[float, float]] = ()) -> FlowRecord:
    """A flow acknowledged at `rate_bps` from `start` for `seconds` of sending, with no
    progress during `stall` = (from, to) seconds after T0; or at the rate of the last of
    `rates` = [(from, b/s), ...] that has begun."""
    samples, acked, t = [], 0.0, start
    end = start + seconds + (stall[1] - stall[0] if stall else 0.0)
    while t <= end + 1e-9:
        samples.append([T0 + t, int(acked), 10.0, 0, 0, 0, timeouts, 4, 0])
        now = [r for at, r in rates if at <= t + 1e-9]
        if not (stall and stall[0] <= t < stall[1]):
            acked += (now[-1] if now else rate_bps) / 8 * step
        t = round(t + step, 6)
    size = size or int(acked)
    sender = SenderReport(
        ok=True, completion_time_s=end - start,
        counters=SenderCounters(timeouts=timeouts, retransmits=timeouts,
                                data_packets_sent=size // 1432 + 1, max_qmax=4),
        pool=EvPoolReport(evs_retired=[Retirement(r - start, 0, 1) for r in retirements]))
    return FlowRecord(src, dst, size, start, [], sender,
                      Timeline(sender_start=T0 + start, fields=list(SAMPLE_FIELDS),
                               samples=samples))


def failed(src: str, dst: str, error: str = "no summary written") -> FlowRecord:
    """A flow whose sender wrote no report."""
    return FlowRecord(src, dst, 1000, sender=SenderReport.failed(error))


def verdict(faithful: bool = True) -> Verdict:
    return Verdict(faithful=faithful, reasons=[] if faithful else ["CPU 99% busy"],
                   cpu_busy=0.5, cpu_nice=0.1, backlog_p95_bytes=0.0, backlog_max_bytes=0,
                   ingress_loss_share=0.0, load_average=[1, 1, 1])


def receiver(**stats: int) -> ReceiverReport:
    return ReceiverReport(stats=ReceiverStats(**stats))


def run(flows: list[FlowRecord], counters=None, receivers=None,
        end: float | None = None) -> PhaseRecord:
    return PhaseRecord("x", T0, T0 + (end or 10.0), verdict(), flows, receivers or {},
                       counters or {})
