"""When a sender's packets in flight count as lost, and when its silence calls for a probe.

Three timers, as RACK-TLP (RFC 8985) arranges them, adapted to a software fabric whose delay
is heavy tailed (`recovery.expected_rtt`, `recovery.retransmission_timeout`):

- RACK: a packet sent before one that was acknowledged is lost once it is older than the
  RTT the connection expects plus the reordering window.
- RTO: a packet nothing later has revealed is lost when the timer runs out, counted from
  the latest of its send, the last ACK with progress and the latest resend turn a NACK
  gave; it backs off while timeouts repeat.
- Tail loss probe: after a silence shorter than the RTO, one packet goes again so that its
  ACK lets RACK judge the rest.

`LossDetector` only times: the sender declares the losses it reports and acts on them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

from mrclab.endpoint.core import recovery
from mrclab.endpoint.core.ev_pool import EvState
from mrclab.endpoint.core.recovery import ReorderWindow
from mrclab.endpoint.core.rtt import RttEstimator, RttQuantile
from mrclab.endpoint.core.sack import Transmission
from mrclab.endpoint.core.sender_config import SenderConfig

MAX_BACKOFF: Final = 64  # the RTO's largest multiplier


class LossDetector:
    """The loss timers of one sender; shares its RTT estimators and reordering window."""

    def __init__(self, cfg: SenderConfig, rtt: RttEstimator, rtt_hi: RttQuantile,
                 reorder: ReorderWindow, now: float) -> None:
        self.cfg, self.rtt, self.rtt_hi, self.reorder = cfg, rtt, rtt_hi, reorder
        self.backoff = 1
        self.last_progress = now  # the latest ACK that delivered something new
        self.last_turn = now  # the latest turn a NACK gave a resend (`receiver.ResendPacer`)
        self.rack_seq = 0  # send order of the latest-sent transmission known delivered
        self.last_tail_probe = -math.inf
        self.next_check = math.inf  # when a packet in flight may next be judged lost

    # --------------------------------------------------------------------- the timers
    def rto(self) -> float:
        """The retransmission timeout now, backoff included, at most a third of
        `idle_timeout` (never below the timer without backoff).

        The sender gives up after `idle_timeout` of silence: a backed-off timer past it
        would stop trying before a fabric that stalled for a few seconds worked again, so
        the cap lets it try at least three times first. `max_rto` is no cap here: RTTs of
        a CPU-bound emulated fabric reach it (mrclab/endpoint/README.md, "Why the window is so")."""
        cfg = self.cfg
        base = recovery.retransmission_timeout(self.rtt, self.rtt_hi, self.reorder.extra,
                                               cfg.min_rto, cfg.max_rto, cfg.initial_rto)
        return min(base * self.backoff, max(base, cfg.idle_timeout / 3))

    def expected_rtt(self, st: EvState) -> float:
        """The latest a packet on `st` may be acknowledged before RACK counts it lost."""
        return self._expected(st.rtt)

    def _expected(self, own: RttEstimator) -> float:
        """`expected_rtt` of an EV whose estimator is `own`. The connection's own gives
        the least of any EV's (`recovery.expected_rtt` takes the larger of the two)."""
        if not self.rtt.samples:
            return self.cfg.initial_rto
        return recovery.expected_rtt(own, self.rtt, self.rtt_hi, self.cfg.reorder_margin) \
            + self.reorder.extra

    def timer_at(self, oldest: Transmission) -> float:
        """When the retransmission timer runs out, `oldest` being the oldest in flight."""
        return self._timer_from(oldest.sent_at, self.rto())

    def _timer_from(self, sent_at: float, rto: float) -> float:
        """The timer of a packet sent at `sent_at`: like TCP's, restarted by every ACK that
        brings progress (a queue that suddenly deepens delays ACKs without any loss); and
        a turn the receiver gave a resend is progress to come: its ACK will let RACK judge
        what was sent before it, so the timer waits for it. (`max` of two at a time, here
        and below: mypyc compiles those, and calls Python's for three.)"""
        return max(max(sent_at, self.last_progress), self.last_turn) + rto

    def tail_probe_at(self, last_heard: float) -> float:
        """When silence calls for a tail loss probe: two smoothed RTTs, and at least the
        recent high quantile of the RTT, after the last feedback or probe (RFC 8985's PTO,
        with the tail of a software fabric's delay in it), and not before a turn the
        receiver gave a resend has come, as the timer. Never sooner than half the timer's
        floor: on a path of no delay (a simulated veth) the RTT is 0."""
        return max(max(last_heard, self.last_tail_probe), self.last_turn) \
            + max(max(2 * self.rtt.srtt, self.rtt_hi.value), self.cfg.min_rto / 2)

    def tail_probe_due(self, now: float, last_heard: float, oldest: Transmission) -> bool:
        """Whether a tail loss probe goes now (counted as sent): only with the probe on,
        an RTT measured, and its time come before the timer's."""
        if not self.cfg.tail_probe or not self.rtt.samples:
            return False
        at = self.tail_probe_at(last_heard)
        if now < at or at >= self.timer_at(oldest):  # the timer acts first: no probe
            return False
        self.last_tail_probe = now
        return True

    def deadlines(self, last_heard: float, oldest: Transmission) -> list[float]:
        """When the timer and the tail probe want a look at packets in flight (`oldest`
        first), besides `next_check`."""
        times = [self.timer_at(oldest)]
        if self.cfg.tail_probe and self.rtt.samples:
            times.append(self.tail_probe_at(last_heard))
        return times

    # ---------------------------------------------------------------------- judging
    def scan(self, inflight: Iterable[Transmission], now: float
             ) -> tuple[list[Transmission], list[Transmission]]:
        """The packets of `inflight` (oldest first) lost by now: (by RACK, by the timer).
        Sets `next_check`."""
        rto = self.rto()
        floor = self.rtt.min_rtt if self.rtt.samples else 0.0
        lost_reorder: list[Transmission] = []
        lost_timeout: list[Transmission] = []
        next_check = math.inf
        self.reorder.decay(now, self.rtt.srtt)
        least = min(self._expected(self.rtt), rto)
        for tx in inflight:
            if tx.sent_at + floor > now:
                next_check = min(next_check, tx.sent_at + floor)
                break  # younger than the shortest RTT: nothing after it can be judged yet
            if tx.sent_at + least >= next_check:
                # no packet from here on has a deadline before `next_check` (> now), nor
                # is any due: the scan, once per ACK, stays as short as the packets near
                # their deadline rather than a window of them. The same losses; only a
                # young packet's shortest-RTT mark is no longer a wake-up, and at that
                # mark none of its packets could be due.
                break
            if tx.seq < self.rack_seq:
                deadline = tx.sent_at + min(self.expected_rtt(tx.ev), rto)
                bucket = lost_reorder
            else:
                deadline = self._timer_from(tx.sent_at, rto)
                bucket = lost_timeout
                if deadline > now:
                    # every later transmission is later in send order too, so its timer
                    # runs out no sooner: nothing after this one is due (and the scan,
                    # once per wake-up, stays short with a large window)
                    next_check = min(next_check, deadline)
                    break
            if deadline <= now:
                bucket.append(tx)
            else:
                next_check = min(next_check, deadline)
        self.next_check = next_check
        return lost_reorder, lost_timeout

    # --------------------------------------------------------------------- feedback
    def on_timeout(self) -> bool:
        """The timer ran out: back off. True for the first timeout in a row."""
        first = self.backoff == 1
        self.backoff = min(self.backoff * 2, MAX_BACKOFF)
        return first

    def on_progress(self, now: float) -> None:
        """An ACK delivered something new: the timer restarts without backoff."""
        self.backoff = 1
        self.last_progress = now

    def on_turn(self, turn: float) -> None:
        """A NACK gave a resend its turn at `turn`."""
        self.last_turn = max(self.last_turn, turn)

    def on_delivered(self, tx: Transmission) -> None:
        """`tx`, this very transmission, was acknowledged."""
        self.rack_seq = max(self.rack_seq, tx.seq)
