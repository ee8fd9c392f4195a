"""Smoothed RTT estimation (RFC 6298 style), used per EV and per connection."""

from __future__ import annotations

from dataclasses import dataclass


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
