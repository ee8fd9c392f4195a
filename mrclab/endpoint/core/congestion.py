"""DCTCP-like congestion window in packets.

Every ACK or NACK is one feedback sample; a sample is *marked* when it echoes ECN CE, reports
a trim, reports a `qmax` at or above the configured threshold, or stands for a packet
inferred lost. Once per RTT the window shrinks by ``alpha / 2`` where alpha is the moving
average of the marked fraction; unmarked samples grow it (slow start until the first mark,
then one packet per window). A trim is an ordinary mark: it never collapses the window.

alpha starts at 1, so the first mark (ending slow start) halves the window, as DCTCP's
conservative start does. The window after that is the overshoot draining: its marks are
for packets sent before the cut, so it neither cuts again nor measures (TCP's CWR state).
The next whole window then *replaces* the prior with its measured fraction: faded in with
the gain instead, the prior would keep cutting by about half at each mark for several
windows.

With `echo_window` (the simulator's datacenter senders), at most one cut per two windows,
as TCP answers ECN at most once per window of data (RFC 3168): the window after a cut
carries the marks of packets sent before it, so it updates alpha but does not cut again.
Cutting on those echoes too took the window to about half of what the path carries
whenever the marks came at once (a full sprayed fabric, k=8 over 1.5 ms, EV steering
already fixed: 0.73 of the link rate at the trough; 0.81 without the second cut).
Without it, one cut per window: DCTCP as published, which the congestion exercise
teaches and the lab's senders keep.

The gain is 1/4, not DCTCP's usual 1/16: DCTCP's paper bounds it by
1.386 / sqrt(2 (C * RTT + K)) (bandwidth-delay product and marking threshold in packets),
and the emulated fabric's ~6 jumbo frames in flight plus K = 8 give 0.26, where a
datacenter's hundreds of packets give 1/16.

A sender that knows the path's BDP (the simulator's datacenter senders, `SenderConfig.
init_ssthresh`) starts with a window of a BDP and no slow start: the first window measures
alpha instead of doubling past the BDP into the queues, and `gain` then follows DCTCP's
bound for that BDP (1/8 at 100 Gb/s: 1.386 / sqrt(2 (43 + 8)) = 0.14).

Trims get a quicker response (like UEC NSCC's quick adapt): a window with trims in it that
delivered less than an eighth of the window per RTT (NSCC's gate) takes the window down to
what it delivered, however far that is, where DCTCP's cut is at most half per RTT. Gated
at half, a burst of trims among many senders' tails (a collective's step, after a link
failed) took a connection's window from 352 packets to 44 while the path was about to
clear.

A window answered for under half of itself (a sender short of data: a message's tail, a
connection between a collective's steps) measures alpha but cuts nothing, by marks or by
trims: what it delivered says nothing of what the path would carry (RFC 7661's concern).

Proportional increase (as UEC NSCC's is publicly described): with `delay_target`, an
unmarked ACK whose packet queued less than the target grows the window by
1 - delay / target on top of the additive 1 / cwnd, so a window of a BDP grows into the
queueing the target allows within a few RTTs instead of at one packet per RTT: the window
then covers the RTT that the queues of a loaded fabric add. Only for source-routed senders
(the simulator's datacenter ones), whose paths each get the same share of the window: with
hashed EVs the shares are uneven, the growth fills the busiest path's queue into marks and
trims, and ev's mean fell (simulated permutation k=4: 83.8 -> 77.4 %, while source went
93.6 -> 96.5 %, at the payload ceiling). With marks at half a BDP it lifts ev's first
150 us (85.8 -> 91.7 %), but ev then settles lower over longer flows (500 us: 91.9 %
without it, 77.7 % with it; why is not traced).

Fast increase (as UEC NSCC's is publicly described: a whole window of ACKs whose packets
met no queue, then a quarter of a packet per ACK): with `fast_delay`, once a window's worth
of unmarked ACKs in a row queued less than `fast_delay` more than the least seen, each
further one grows the window by `fast_gain`, a quarter per RTT. For every sender of the
simulator's, hashed or routed: it needs empty queues, which the busiest path's are not.
A window cut far below the path won it back at one packet per RTT once the path cleared:
300 RTTs from 40 packets to a BDP of 344.

Two floors: marks (a queue somewhere) may take the window down to `min_cwnd` (1 packet: N
incast senders then keep N packets queued, not 2N), but a window with a loss in it, or a
timeout, stops at `loss_min_cwnd` (2): a loss may mean a dead path, and with two packets
out the next one lost is found by a later ACK at once, not by the retransmission timer.

The measurements behind each choice: mrclab/endpoint/README.md, "Why the window is so".
"""

from __future__ import annotations

import math
from collections.abc import Container
from dataclasses import dataclass
from typing import Any, Protocol

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure-Python endpoint needs no mypy (mrclab.endpoint.compiled)
    def mypyc_attr(*attrs: str, **kwattrs: object) -> Any:  # type: ignore[misc]
        return lambda cls: cls


class Window(Protocol):
    """What a sender asks of its congestion window: `DctcpWindow`'s interface, which a
    window class of the congestion exercise has without deriving from it. Its methods'
    results are typed `object`: the sender ignores them or takes their truth, as Python
    would whatever a student's window returns, compiled (mrclab.endpoint.compiled) or not."""

    cwnd: float
    max_cwnd: float
    ssthresh: float

    def on_feedback(self, marked: bool, now: float, srtt: float, *args: Any,
                    **kwargs: Any) -> object: ...

    def on_timeout(self, first: bool = True) -> object: ...

    def undo_timeout(self) -> object: ...

    def confirm_timeout(self) -> object: ...


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(slots=True)
class DctcpWindow:
    cwnd: float = 16.0
    min_cwnd: float = 1.0
    loss_min_cwnd: float = 2.0
    max_cwnd: float = 512.0
    gain: float = 1 / 4
    alpha: float = 1.0
    alpha_measured: bool = False  # alpha is still the prior, not a measured fraction
    draining: bool = False  # the window after slow start's cut: no cut, no measurement
    ssthresh: float = float("inf")
    decreases: int = 0
    _window_start: float = 0.0
    _acked: int = 0
    _marked: int = 0
    _lost: bool = False  # a loss in the current window
    _delivered: int = 0  # ACKs (not NACKs, not losses) in the current window
    _trimmed: int = 0  # NACKs in the current window
    _before_timeout: tuple[float, float] | None = None  # (cwnd, ssthresh) a timeout cut
    _heard: bool = False  # a sample came
    delay_target: float = 0.0  # seconds of queueing: proportional increase below it; 0: off
    echo_window: bool = False  # the window after a cut measures but does not cut
    _cut_last: bool = False  # the last window ended in a cut: this one's marks are its echo
    fast_delay: float = 0.0  # queueing (s) under which an ACK's packet met no queue; 0: off
    fast_gain: float = 1 / 4  # of a packet per ACK, once a whole window met no queue
    _unqueued: int = 0  # unmarked ACKs in a row whose packets met no queue
    _least_delay: float = math.inf  # the least queue_delay seen: a full frame's own

    def window_began(self, at: float) -> None:
        """The current window began at `at`, as for a window that has heard samples
        before (slow start and its draining window); a new one without slow start begins
        with its first sample instead."""
        self._heard = True
        self._window_start = at

    def on_feedback(self, marked: bool, now: float, srtt: float, loss: bool = False,
                    trimmed: bool = False, queue_delay: float | None = None) -> None:
        """One sample; `loss`: it stands for a packet inferred lost, `trimmed`: a NACK
        (both are marks too); `queue_delay`: how long its packet queued (RTT - min RTT),
        for the proportional increase."""
        if not self._heard:
            self._heard = True
            if self.ssthresh != float("inf"):
                # no slow start (`ssthresh` given): the first window, a measurement, starts
                # with its first sample, not at 0 (which would end it at once, one sample long)
                self._window_start = now
        self._acked += 1
        self._lost = self._lost or loss
        self._trimmed += trimmed
        self._delivered += not (loss or trimmed)
        marked = marked or loss or trimmed
        if marked:
            self._marked += 1
            self._unqueued = 0
            if self.ssthresh == float("inf"):
                # First congestion signal ends slow start right away, not a window later.
                self._end_window(now, srtt)
                return
        elif self.cwnd < self.ssthresh:
            self.cwnd = min(self.cwnd + 1, self.max_cwnd)
        else:
            grow = 1 / self.cwnd
            if queue_delay is not None:
                if queue_delay < self.delay_target:
                    grow += 1 - queue_delay / self.delay_target
                # measured against the least seen, not 0: the min RTT may be a header's
                # (the connection's open), which a full frame's serialization never meets
                self._least_delay = least = min(self._least_delay, queue_delay)
                if queue_delay - least >= self.fast_delay:
                    self._unqueued = 0
                else:
                    self._unqueued += 1
                    if self._unqueued > self.cwnd:  # a whole window met no queue
                        grow += self.fast_gain
            self.cwnd = min(self.cwnd + grow, self.max_cwnd)
        if now - self._window_start >= srtt:
            self._end_window(now, srtt)

    def _end_window(self, now: float, srtt: float) -> None:
        measured = self.ssthresh != float("inf")  # a whole window, not slow start's first
        elapsed = now - self._window_start
        per_rtt = min(1.0, srtt / elapsed) if elapsed > 0 else 1.0
        # Every packet out is answered (ACK, NACK or loss): a window answered for under
        # half of itself was short of data, and what it delivered says nothing of what
        # the path carries. A loss may be a dead path: it always counts. (The figures:
        # mrclab/endpoint/README.md, "No cut in a window short of data".)
        full = not measured or self._lost or self._acked * per_rtt >= self.cwnd / 2
        if self.draining:  # slow start's echo window: it neither cuts nor measures
            self.draining = self._cut_last = False
        else:
            self._measure_and_cut(full)
        if self._trimmed and measured and full:
            self._quick_adapt(self._delivered * per_rtt)
        self._window_start, self._acked, self._marked, self._lost = now, 0, 0, False
        self._delivered = self._trimmed = 0

    def _quick_adapt(self, achieved: float) -> None:
        """A window with trims that delivered (`achieved` per RTT) less than an eighth of
        the window: take the window down to that, at once."""
        if achieved < self.cwnd / 8:
            floor = self.loss_min_cwnd if self._lost else self.min_cwnd
            self.cwnd = self.ssthresh = max(floor, achieved)

    def _measure_and_cut(self, cut: bool) -> None:
        """Alpha from the window's marked fraction; with marks and `cut`, the cut."""
        fraction = self._marked / self._acked if self._acked else 0.0
        in_slow_start = self.ssthresh == float("inf")
        if self.alpha_measured:
            self.alpha = (1 - self.gain) * self.alpha + self.gain * fraction
        elif not in_slow_start:  # the first window after the draining one: a measurement
            self.alpha, self.alpha_measured = fraction, True
        # (slow start's first mark cuts with the prior, alpha = 1: the window halves)
        echo, self._cut_last = self._cut_last and self.echo_window, False
        if self._marked and not echo and cut:
            self._cut_last = True
            self.draining = in_slow_start
            floor = self.loss_min_cwnd if self._lost else self.min_cwnd
            self.cwnd = max(floor, self.cwnd * (1 - self.alpha / 2))
            self.ssthresh = self.cwnd
            self.decreases += 1

    def on_timeout(self, first: bool = True) -> None:
        """A retransmission timeout: halve (the path is more likely dead than congested).
        `first`: not a backed-off repeat of the last one (an undo goes back before both)."""
        if first or self._before_timeout is None:
            self._before_timeout = (self.cwnd, self.ssthresh)
        self.cwnd = max(self.loss_min_cwnd, self.cwnd / 2)
        self.ssthresh = self.cwnd

    def undo_timeout(self) -> bool:
        """The timeout was spurious (a packet it declared lost arrived): restore the window
        it cut, as the Eifel response (RFC 4015) does. A switch stalled by the CPU holds
        packets past the RTO now and then; measured on the permutation experiment, each such
        stall cost the flows it hit a halved window, 5 of its 6 slowest flows."""
        if self._before_timeout is None:
            return False
        cwnd, ssthresh = self._before_timeout
        self.cwnd, self.ssthresh = max(self.cwnd, cwnd), ssthresh
        self._before_timeout = None
        return True

    def confirm_timeout(self) -> None:
        """A packet the last timeout declared lost was delivered by its resent copy first:
        the loss was real and the timeout's cut stands."""
        self._before_timeout = None


class PlaneShare:
    """One window covers every plane; this sets aside the share of the planes left out
    (suspect) and gives it back as they return.

    Left whole when a plane of four fails, the window puts a third more on each survivor,
    and the marks that follow cut it for hundreds of microseconds to well below what the
    survivors carry (simulated, 4 planes of k=4 at 100 Gb/s: 0.83 of capacity to 0.40,
    where 3/4 would keep 0.63). What was set aside comes back as it was, not scaled with
    the window since: a plane suspected by mistake (a slow one whose ACKs come late) then
    leaves the window where it would have been. A plane counts as left out once suspect
    for an RTT (`hold`): a congestion loss makes a working plane suspect until its next
    ACK, and setting aside its share each time cost 8 planes with one failed 1.7 points
    of the survivors' capacity."""

    def __init__(self, planes: int) -> None:
        self.planes = planes
        self.in_use = planes  # the planes the window is sized for
        self.set_aside = 0.0  # window of the planes left out, until they return
        self.suspect_since: dict[int, float] = {}  # plane -> when it turned suspect

    def refit(self, cc: Window, trusted: Container[int] | None, hold: float,
              now: float) -> bool:
        """Resize `cc` for the planes in use now (`trusted`: None, all of them); True
        when that changed its size."""
        since = self.suspect_since
        if trusted is None and not since and self.in_use == self.planes:
            return False  # every plane in use and trusted: the common case, on every packet
        for plane in range(self.planes):
            if trusted is None or plane in trusted:
                since.pop(plane, None)
            else:
                since.setdefault(plane, now)
        serving = self.planes - sum(1 for t in since.values() if now - t >= hold)
        before = self.in_use
        if serving == before:
            return False
        if serving < before:
            share = cc.cwnd * (before - serving) / before
            cc.cwnd = max(1.0, cc.cwnd - share)
            self.set_aside += share
        else:
            share = self.set_aside * (serving - before) / (self.planes - before)
            cc.cwnd = min(cc.max_cwnd, cc.cwnd + share)
            self.set_aside -= share
        if cc.ssthresh != math.inf:
            cc.ssthresh = cc.cwnd
        self.in_use = serving
        return True
