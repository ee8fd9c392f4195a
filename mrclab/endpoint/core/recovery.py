"""Loss inference that tolerates reordering and jitter: an adaptive reordering window and
the detection of spurious retransmissions.

A packet is declared lost when a later-sent one was acknowledged and it is later than the
connection has seen packets be (see `MrcSender`). That bound is only a guess on a fabric of
software switches, so every inferred loss is remembered (`LostRecord`) until the sender
learns how it went:

- Eifel-style: an ACK echoes the `ts` of the very transmission that was declared lost, so
  it was only late;
- DSACK-style: the receiver answers a DATA it already had with an ACK flagged RETX
  (duplicate), so two copies arrived.

Either way the retransmission was spurious: the reordering window grows by at least the
lateness that was observed, and the EV blamed for the loss is cleared. Without spurious
retransmissions the window decays (halves every `decay_rtts` smoothed RTTs), so it tracks the
current jitter rather than the worst ever seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mrclab.endpoint.core.ev_pool import EvState
from mrclab.endpoint.core.rtt import RttEstimator, RttQuantile


def expected_rtt(own: RttEstimator, conn: RttEstimator, high: RttQuantile,
                 margin: float) -> float:
    """The latest an ACK for a packet on an EV (`own`) may plausibly come back.

    The larger of the EV's and the connection's smoothed estimate (one EV has few samples
    and queueing moves fast, so its own estimate alone makes for spurious retransmissions),
    and at least the connection's recent high quantile: delay on a software fabric is heavy
    tailed, and srtt + 2 * rttvar does not cover its tail."""
    srtt = max(own.srtt, conn.srtt)
    rttvar = max(own.rttvar, conn.rttvar)
    return max(srtt * (1 + margin) + 2 * rttvar, high.value)


def retransmission_timeout(conn: RttEstimator, high: RttQuantile, extra: float,
                           min_rto: float, max_rto: float, fallback: float) -> float:
    """The RTO before backoff: RFC 6298's, but at least the latest a packet has recently
    been seen to arrive and half again the 99th percentile. The timer is the last resort,
    for when no later ACK can reveal a loss (RACK handles the rest), so it must not fire on
    the tail of the delay distribution, whose stalls come back."""
    base = conn.rto(min_rto, max_rto, fallback)
    if not conn.samples:
        return base
    late = max(1.5 * high.value, high.peak) + 1.5 * extra
    return min(max(base, late), max_rto)


@dataclass(slots=True)
class LostRecord:
    """A transmission declared lost (by reordering or RTO) and resent."""

    ts: int  # its `ts` as sent (µs, wrapping): an ACK echoing it proves it arrived
    ev: EvState
    sent_at: float
    waited: float  # how long after its send it was declared lost
    timeout: int = 0  # the retransmission timeout that declared it lost (1, 2, ...); 0: none

    @property
    def by_timeout(self) -> bool:
        return self.timeout > 0


@dataclass(slots=True)
class ReorderWindow:
    """Extra time (s) a packet may be late beyond the RTTs seen before it is declared lost."""

    extra: float = 0.0
    min_step: float = 50e-6
    grow: float = 1.5
    decay_rtts: float = 16.0
    spurious: int = 0
    _changed: float = 0.0

    def on_spurious(self, now: float, lateness: float, min_rtt: float, cap: float) -> None:
        """A loss declared `lateness` seconds too early turned out spurious."""
        self.spurious += 1
        step = max(self.min_step, min_rtt / 4)
        self.extra = min(cap, max(self.extra * self.grow, self.extra + lateness,
                                  self.extra + step))
        self._changed = now

    def decay(self, now: float, srtt: float) -> None:
        if self.extra and now - self._changed >= self.decay_rtts * srtt:
            self.extra = self.extra / 2 if self.extra > self.min_step else 0.0
            self._changed = now


@dataclass(slots=True)
class LossLedger:
    """The latest transmission declared lost per PSN, until an ACK tells how it went; and
    per retransmission timeout, how many of the packets it declared lost are unsettled."""

    records: dict[int, LostRecord] = field(default_factory=dict)
    timeouts: int = 0
    _unsettled: dict[int, int] = field(default_factory=dict)  # timeout -> packets

    def record(self, psn: int, rec: LostRecord) -> None:
        self.records[psn] = rec

    def open_timeout(self, packets: int) -> int:
        """A timeout declared `packets` lost; returns its number for their records."""
        self.timeouts += 1
        self._unsettled[self.timeouts] = packets
        return self.timeouts

    def settle(self, rec: LostRecord) -> bool:
        """`rec`'s packet arrived after all (late, trimmed, or after its resent copy).
        True when that was the last of its timeout's packets: the timeout recovered no
        loss. A packet declared lost again by a later timeout never settles the first."""
        left = self._unsettled.get(rec.timeout)
        if left is None:
            return False
        if left > 1:
            self._unsettled[rec.timeout] = left - 1
            return False
        del self._unsettled[rec.timeout]
        return True

    def resend_acked(self, psn: int, ts: int) -> LostRecord | None:
        """The record of `psn` when an ACK echoing `ts` is for a later transmission of it
        (the resent copy got there first: so far, the loss looks real)."""
        rec = self.records.get(psn)
        return rec if rec is not None and ts != rec.ts else None

    def on_nack(self, psn: int, ts: int) -> LostRecord | None:
        """A NACK for `psn` echoing `ts`: when that is the transmission declared lost, it
        was trimmed, not lost (its NACK came after the loss was declared); returns its
        record, now settled."""
        rec = self.records.get(psn)
        if rec is None or rec.ts != ts:
            return None
        del self.records[psn]
        return rec

    def on_ack(self, psn: int, ts: int, duplicate: bool,
               age: float | None) -> tuple[LostRecord, float | None] | None:
        """An ACK for `psn` (echoing `ts`, RETX-flagged when `duplicate`). When it shows the
        loss was spurious, returns the record and how late the lost transmission turned
        out to be (None when only a duplicate says so: then the original arrived first,
        its ACK was lost or overtaken, which is no sign of reordering)."""
        rec = self.records.get(psn)
        if rec is None:
            return None
        late = ts == rec.ts and age is not None  # the very transmission declared lost
        if not late and not duplicate:
            return None  # the retransmission's ACK: the original may still turn up (or not)
        del self.records[psn]
        return rec, (max(0.0, age - rec.waited) if late and age is not None else None)
