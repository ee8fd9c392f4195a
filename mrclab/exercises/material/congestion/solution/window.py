"""Exercise congestion: the MRC sender's congestion window, DCTCP-style.

The sender (mrclab/endpoint/core/sender.py) makes one `Window` per message and feeds it every
ACK and NACK, and every packet it infers lost, as one *sample*:

    on_feedback(marked, now, srtt, loss=False, trimmed=False)

`marked`: the ACK echoed ECN CE (or a qmax at or above the sender's threshold); `loss`: the
sample stands for a packet inferred lost; `trimmed`: it is a NACK (a switch trimmed the
packet). The sender keeps `int(cwnd)` packets in flight. Timeouts, their undo and the quick
response to trims are given; the rest is yours.
"""

from __future__ import annotations

INF = float("inf")


class Window:
    def __init__(self, cwnd: float = 16.0, min_cwnd: float = 1.0, max_cwnd: float = 512.0,
                 loss_min_cwnd: float = 2.0, gain: float = 1 / 4) -> None:
        self.cwnd = cwnd
        self.min_cwnd = min_cwnd  # the floor after marks
        self.loss_min_cwnd = loss_min_cwnd  # the floor after a window with a loss in it
        self.max_cwnd = max_cwnd
        self.gain = gain  # g: the weight of the newest window in alpha
        self.alpha = 1.0  # the moving average of the marked fraction; 1 until measured
        self.alpha_measured = False  # alpha is still the prior, not a measured fraction
        self.draining = False  # the window after slow start's cut: no cut, no measurement
        self.ssthresh = INF  # INF: still in slow start
        self.decreases = 0  # cuts so far
        self._window_start = 0.0  # when the current window began
        self._acked = 0  # samples in the current window
        self._marked = 0  # marked samples in the current window
        self._lost = False  # a loss in the current window
        self._delivered = 0  # ACKs (not NACKs, not losses) in the current window
        self._trimmed = 0  # NACKs in the current window
        self._before_timeout: tuple[float, float] | None = None  # what a timeout cut

    def on_feedback(self, marked: bool, now: float, srtt: float, loss: bool = False,
                    trimmed: bool = False) -> None:
        """One sample: an ACK (`marked`: it echoed congestion), a NACK (`trimmed`) or a
        packet inferred lost (`loss`)."""
        self._lost = self._lost or loss
        self._trimmed += trimmed
        self._delivered += not (loss or trimmed)
        # a trim or a loss says as much about the path's queues as an ECN mark
        self._acked += 1
        marked = marked or loss or trimmed
        if marked:
            self._marked += 1
        if marked and self.ssthresh == INF:
            # the first congestion signal ends slow start at once, not a window later
            self._end_window(now, srtt)
            return
        if not marked and self.cwnd < self.ssthresh:
            self.cwnd = min(self.cwnd + 1, self.max_cwnd)  # slow start: doubles per RTT
        elif not marked:
            self.cwnd = min(self.cwnd + 1 / self.cwnd, self.max_cwnd)  # +1 per window
        if now - self._window_start >= srtt:
            self._end_window(now, srtt)

    def _end_window(self, now: float, srtt: float) -> None:
        """One window of samples is over (once per RTT): measure it and cut."""
        measured = self.ssthresh != INF  # a whole window, not slow start's first
        elapsed = now - self._window_start
        per_rtt = min(1.0, srtt / elapsed) if elapsed > 0 else 1.0
        # answered for under half of itself: short of data, a measure but no cut (given)
        full = not measured or self._lost or self._acked * per_rtt >= self.cwnd / 2
        if self.draining:
            # its marks are for packets sent before the cut: they would cut twice
            self.draining = False
        else:
            self._measure_and_cut(full)
        if self._trimmed and measured and full:
            self._quick_adapt(self._delivered * per_rtt)
        self._window_start, self._acked, self._marked, self._lost = now, 0, 0, False
        self._delivered = self._trimmed = 0

    def _measure_and_cut(self, cut: bool) -> None:
        """Once per window: update alpha from the window's marked fraction, and cut
        (when `cut`: the window was not short of data)."""
        fraction = self._marked / self._acked if self._acked else 0.0
        in_slow_start = self.ssthresh == INF
        if self.alpha_measured:
            self.alpha = (1 - self.gain) * self.alpha + self.gain * fraction
        elif not in_slow_start:
            # the first window measured replaces the prior instead of fading it
            self.alpha, self.alpha_measured = fraction, True
        if self._marked and cut:
            self.draining = in_slow_start
            floor = self.loss_min_cwnd if self._lost else self.min_cwnd
            self.cwnd = max(floor, self.cwnd * (1 - self.alpha / 2))
            self.ssthresh = self.cwnd
            self.decreases += 1

    # ------------------------------------------------------------------ given, not yours
    def _quick_adapt(self, achieved: float) -> None:
        """A window with trims that delivered (`achieved` per RTT) less than an eighth of
        the window: take the window down to that, at once."""
        if achieved < self.cwnd / 8:
            floor = self.loss_min_cwnd if self._lost else self.min_cwnd
            self.cwnd = self.ssthresh = max(floor, achieved)

    def on_timeout(self, first: bool = True) -> None:
        """A retransmission timeout: halve. `first`: not a backed-off repeat."""
        if first or self._before_timeout is None:
            self._before_timeout = (self.cwnd, self.ssthresh)
        self.cwnd = max(self.loss_min_cwnd, self.cwnd / 2)
        self.ssthresh = self.cwnd

    def undo_timeout(self) -> bool:
        """The timeout was spurious: give back the window it cut."""
        if self._before_timeout is None:
            return False
        cwnd, ssthresh = self._before_timeout
        self.cwnd, self.ssthresh = max(self.cwnd, cwnd), ssthresh
        self._before_timeout = None
        return True

    def confirm_timeout(self) -> None:
        """The timeout's loss was real: its cut stands."""
        self._before_timeout = None
