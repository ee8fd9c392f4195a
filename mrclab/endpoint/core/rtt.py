"""RTT estimation: smoothed (RFC 6298 style, per EV and per connection) and a recent
high quantile (per connection) for loss inference on fabrics with heavy-tailed jitter."""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field
from typing import Final


@dataclass(slots=True)
class RttEstimator:
    srtt: float = 0.0
    rttvar: float = 0.0
    min_rtt: float = 0.0
    samples: int = 0

    def update(self, rtt: float) -> None:
        if self.samples == 0:
            self.srtt, self.rttvar, self.min_rtt = rtt, rtt / 2, rtt
        else:
            self.rttvar = 0.75 * self.rttvar + 0.25 * abs(self.srtt - rtt)
            self.srtt = 0.875 * self.srtt + 0.125 * rtt
            self.min_rtt = min(self.min_rtt, rtt)
        self.samples += 1

    def rto(self, min_rto: float, max_rto: float, fallback: float) -> float:
        """Retransmission timeout; `fallback` until a sample exists."""
        if self.samples == 0:
            return fallback
        return min(max(self.srtt + 4 * self.rttvar, min_rto), max_rto)


@dataclass(slots=True)
class RttQuantile:
    """A high quantile of the last `size` RTT samples.

    On an emulated fabric the delay is not Gaussian: a switch process that waits for a CPU
    delays a few packets by many times the mean, so srtt + k * rttvar both over-reacts to
    and under-covers them. The quantile of what the connection actually saw bounds how late
    a packet that is still on its way can plausibly be. Recomputed every `every` samples
    (sorting a few hundred floats), not per ACK."""

    size: int = 256
    quantile: float = 0.99
    every: int = 16
    value: float = 0.0
    peak: float = 0.0  # the largest of the recent samples
    _recent: deque[float] = field(default_factory=deque)
    _pending: int = 0

    def update(self, rtt: float) -> None:
        recent = self._recent
        recent.append(rtt)
        if len(recent) > self.size:
            recent.popleft()
        self._pending += 1
        if self._pending >= self.every:
            self._pending = 0
            ordered = sorted(recent)
            self.value = ordered[min(len(ordered) - 1, int(self.quantile * len(ordered)))]
            self.peak = ordered[-1]
        else:
            # Rise at once (a late packet means others may be as late right now); fall only
            # at the periodic recount.
            self.value = max(self.value, rtt)
            self.peak = max(self.peak, rtt)


# Bucket edges of `QueueExplainedDelay`, seconds: 0.25 ms, then x sqrt(2) up to ~16 s.
DELAY_EDGES_S: Final[tuple[float, ...]] = tuple(0.00025 * 2 ** (k / 2) for k in range(33))


@dataclass(slots=True)
class QueueExplainedDelay:
    """How much of each RTT the queues the packet crossed can explain.

    An ACK echoes `qmax`, the deepest egress queue (in packets) its DATA packet joined. A
    packet that waited behind q packets at each of H hops, and whose ACK waited behind at
    most one packet per hop, has an RTT of at most min_rtt + H * (q + 2) * T, where T is
    the time a hop takes to send one full frame. So (rtt - min_rtt) / (qmax + 2), the
    *delay per queued packet*, is at most H * T on a faithful fabric; what exceeds it
    waited somewhere no queue of the model accounts for (a switch that could not keep up).
    The sender does not know H or T: it keeps a histogram of the ratio, and the experiment,
    which knows the topology and the link rate, judges it. `counts[i]` holds the samples
    in [DELAY_EDGES_S[i-1], DELAY_EDGES_S[i]); the last bucket everything above."""

    counts: list[int] = field(default_factory=lambda: [0] * (len(DELAY_EDGES_S) + 1))

    def update(self, rtt: float, min_rtt: float, qmax: int) -> None:
        ratio = max(0.0, rtt - min_rtt) / (qmax + 2)
        # the first bucket without a search: it holds every sample of a simulated
        # datacenter (microseconds), and on an ACK a search is a Python call
        first = ratio < DELAY_EDGES_S[0]
        self.counts[0 if first else bisect_right(DELAY_EDGES_S, ratio)] += 1


def share_above(counts: list[int], bound_s: float) -> float:
    """Share of the samples of a `QueueExplainedDelay` histogram (`counts`, as a sender's
    summary reports it) whose delay per queued packet surely exceeds `bound_s`: their
    whole bucket lies above it."""
    total = sum(counts)
    if not total:
        return 0.0
    above = sum(n for i, n in enumerate(counts) if i > 0 and DELAY_EDGES_S[i - 1] >= bound_s)
    return above / total
