"""Was a run faithful? Pure checks on what `mrclab.experiments.lab_engine.machine` measured.

An emulated fabric means something only while the machine keeps up with it. Three signs
that it did not, each a figure the run measured:
- frames the kernel delivered to a switch port that the switch never read (lost in the
  socket buffer: a drop the emulated queue knows nothing about);
- frames waiting in the switches' sockets (a queue outside the model, adding delay);
- the CPU busy all the time with the lab's own work (niced background work excluded: it
  yields to the lab);
- ACKs later than the queues their packets crossed explain (`QueueExplainedDelay` in
  mrclab.endpoint.core.rtt): delay added where the model has no queue, e.g. a switch process that
  stalled. The one sign measurable on BMv2 besides the CPU: it reads its ports through
  packet rings, whose backlog and losses /proc does not show.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Protocol

from mrclab.endpoint.core.rtt import DELAY_EDGES_S, share_above
from mrclab.endpoint.report import SenderReport
from mrclab.experiments.metrics import percentile

INGRESS_LOSS_LIMIT = 0.002  # share of frames lost before the switch read them
BACKLOG_LIMIT_BYTES = 96 * 1024  # p95 of the largest socket backlog (~40 full frames)
CPU_LIMIT = 0.97  # busy share of all cores, niced work excluded
LATE_LIMIT = 0.01  # share of ACKs later than their path's queues explain
# ... and more of them than one stall explains: a switch that stalls once holds back the
# ACKs of every packet then in flight, at most a first window (16 packets) per sender. A
# short phase has few ACKs (a quick incast: ~250), where one stall alone passes 1 %.
LATE_MIN_COUNT = 16


@dataclass
class Measured:
    """Raw machine figures of one run (or one phase of it)."""

    seconds: float
    cpu_busy: float | None  # 0..1, niced work excluded
    cpu_nice: float | None  # 0..1: background work that yields to the lab
    backlog_samples: list[int] = field(default_factory=list)  # bytes, one per sample
    delivered: int | None = None  # frames the kernel delivered to switch ports
    lost: int | None = None  # of those, never read by a switch (p4emu only)
    load_average: list[float] = field(default_factory=list)
    late_share: float | None = None  # of the ACKs, later than the queues explain
    late_bound_s: float | None = None  # delay per queued packet the queues explain
    late_count: int | None = None  # ACKs later than the queues explain


@dataclass
class Verdict:
    faithful: bool
    reasons: list[str]
    cpu_busy: float | None
    cpu_nice: float | None
    backlog_p95_bytes: float | None
    backlog_max_bytes: int | None
    ingress_loss_share: float | None
    load_average: list[float]
    late_share: float | None = None
    engine: str = "lab"  # "sim": virtual time, faithful by construction

    def as_dict(self) -> dict:
        return asdict(self)



class SentFlow(Protocol):
    """A flow with its sender's report (`records.FlowRecord`, which holds verdicts: named
    by what is read of it, so that the two modules do not import each other)."""

    @property
    def sender(self) -> SenderReport: ...


def late_acks(flows: list[SentFlow], bound_s: float) -> tuple[int, int] | None:
    """(late, all) ACKs of the flows, late when their delay per queued packet exceeds
    `bound_s` (see `QueueExplainedDelay`); None when no sender reported them."""
    total = [0] * (len(DELAY_EDGES_S) + 1)
    found = False
    for flow in flows:
        counts = flow.sender.rtt.queue_delay_counts
        if counts and len(counts) == len(total):
            found = True
            total = [a + b for a, b in zip(total, counts, strict=True)]
    if not found:
        return None
    return round(share_above(total, bound_s) * sum(total)), sum(total)


def late_share(flows: list[SentFlow], bound_s: float) -> float | None:
    """Share of all the flows' ACKs that `late_acks` finds late; None when no sender
    reported it."""
    acks = late_acks(flows, bound_s)
    if acks is None:
        return None
    return acks[0] / acks[1] if acks[1] else 0.0


def cpu_only(verdict: Verdict) -> bool:
    """A verdict without the switches' own figures: no socket backlog and no missed-frame
    count were measurable (BMv2 reads its ports through packet rings), so it rests on the
    CPU and the ACKs' delays."""
    return verdict.backlog_p95_bytes is None and verdict.ingress_loss_share is None


def short_label(verdict: Verdict) -> str:
    """A verdict in a word or three, for tables."""
    if verdict.engine == "sim":
        return "virtual time"
    if not verdict.faithful:
        return "unfaithful"  # the machine did not keep up (the reasons say how)
    return "faithful (CPU, delays)" if cpu_only(verdict) else "faithful"


def judge(m: Measured) -> Verdict:
    """The verdict on one run: faithful unless one of the limits above was passed."""
    reasons: list[str] = []
    loss_share = None
    if m.delivered:
        loss_share = (m.lost or 0) / m.delivered
        if loss_share > INGRESS_LOSS_LIMIT:
            reasons.append(f"switches missed {loss_share:.2%} of the frames delivered to "
                           f"them (limit {INGRESS_LOSS_LIMIT:.1%})")
    p95 = percentile(m.backlog_samples, 95) if m.backlog_samples else None
    if p95 is not None and p95 > BACKLOG_LIMIT_BYTES:
        reasons.append(f"switch socket backlog p95 {p95 / 1024:.0f} KiB "
                       f"(limit {BACKLOG_LIMIT_BYTES // 1024} KiB)")
    if m.cpu_busy is not None and m.cpu_busy >= CPU_LIMIT:
        reasons.append(f"CPU {m.cpu_busy:.0%} busy (limit {CPU_LIMIT:.0%})")
    if m.late_share is not None and m.late_share > LATE_LIMIT and \
            (m.late_count is None or m.late_count > LATE_MIN_COUNT):
        reasons.append(f"{m.late_share:.1%} of the ACKs came later than the queues their "
                       f"packets crossed explain (over {m.late_bound_s * 1e3:.0f} ms per queued "
                       f"packet; limit {LATE_LIMIT:.0%} and {LATE_MIN_COUNT} ACKs)")
    return Verdict(faithful=not reasons, reasons=reasons, cpu_busy=m.cpu_busy,
                   cpu_nice=m.cpu_nice, backlog_p95_bytes=p95,
                   backlog_max_bytes=max(m.backlog_samples) if m.backlog_samples else None,
                   ingress_loss_share=loss_share, load_average=m.load_average,
                   late_share=m.late_share)


def combine(verdicts: list[Verdict]) -> Verdict:
    """One verdict for several phases: unfaithful when any phase was."""
    if not verdicts:
        raise ValueError("no verdicts")
    reasons = [r for v in verdicts for r in v.reasons]

    def worst(values: list[float | None]) -> float | None:
        present = [x for x in values if x is not None]
        return max(present) if present else None

    return Verdict(faithful=all(v.faithful for v in verdicts), reasons=reasons,
                   cpu_busy=worst([v.cpu_busy for v in verdicts]),
                   cpu_nice=worst([v.cpu_nice for v in verdicts]),
                   backlog_p95_bytes=worst([v.backlog_p95_bytes for v in verdicts]),
                   backlog_max_bytes=worst([v.backlog_max_bytes for v in verdicts]),
                   ingress_loss_share=worst([v.ingress_loss_share for v in verdicts]),
                   load_average=verdicts[-1].load_average,
                   late_share=worst([v.late_share for v in verdicts]),
                   engine=verdicts[-1].engine)
