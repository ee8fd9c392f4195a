"""DCTCP-like congestion window in packets.

Every ACK or NACK is one feedback sample; a sample is *marked* when it echoes ECN CE, reports
a trim, reports a `qmax` at or above the configured threshold, or stands for a packet
inferred lost. Once per RTT the window shrinks by ``alpha / 2`` where alpha is the moving
average of the marked fraction; unmarked samples grow it (slow start until the first mark,
then one packet per window). A trim is an ordinary mark: it never collapses the window.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class DctcpWindow:
    cwnd: float = 16.0
    min_cwnd: float = 1.0
    max_cwnd: float = 512.0
    gain: float = 1 / 16
    alpha: float = 1.0
    ssthresh: float = float("inf")
    decreases: int = 0
    _window_start: float = 0.0
    _acked: int = 0
    _marked: int = 0

    def on_feedback(self, marked: bool, now: float, srtt: float) -> None:
        self._acked += 1
        if marked:
            self._marked += 1
            if self.ssthresh == float("inf"):
                # First congestion signal ends slow start right away, not a window later.
                self._end_window(now)
                return
        elif self.cwnd < self.ssthresh:
            self.cwnd = min(self.cwnd + 1, self.max_cwnd)
        else:
            self.cwnd = min(self.cwnd + 1 / self.cwnd, self.max_cwnd)
        if now - self._window_start >= srtt:
            self._end_window(now)

    def _end_window(self, now: float) -> None:
        fraction = self._marked / self._acked if self._acked else 0.0
        self.alpha = (1 - self.gain) * self.alpha + self.gain * fraction
        if self._marked:
            self.cwnd = max(self.min_cwnd, self.cwnd * (1 - self.alpha / 2))
            self.ssthresh = self.cwnd
            self.decreases += 1
        self._window_start, self._acked, self._marked = now, 0, 0

    def on_timeout(self) -> None:
        """A retransmission timeout: halve (the path is more likely dead than congested)."""
        self.cwnd = max(self.min_cwnd, self.cwnd / 2)
        self.ssthresh = self.cwnd
