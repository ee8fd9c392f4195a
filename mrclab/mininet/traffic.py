"""Simple traffic from Mininet hosts for checks: background pings and UDP flow sets.

MRC transfers between a lab's hosts are in mrclab.lab.transfers."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mininet.node import Host

import mrclab.mininet.plain_loggers  # noqa: F401 (after Mininet: see there)

_PING_SUMMARY = re.compile(r"(\d+) packets transmitted, (\d+) received")


@dataclass(frozen=True)
class PingResult:
    sent: int
    received: int

    @property
    def lost(self) -> int:
        return self.sent - self.received

    @property
    def loss_pct(self) -> float:
        return 100.0 * self.lost / self.sent if self.sent else 100.0


def parse_ping(output: str) -> PingResult:
    match = _PING_SUMMARY.search(output)
    if match is None:
        raise ValueError(f"no ping summary in output: {output.strip()[-200:]!r}")
    return PingResult(int(match.group(1)), int(match.group(2)))


class BackgroundPing:
    """`ping -i interval -c count` running on a host while the caller does other things."""

    def __init__(self, host: Host, ip: str, count: int, interval: float = 0.05,
                 wait_s: int = 1) -> None:
        self.host = host
        host.sendCmd(f"ping -n -q -i {interval} -W {wait_s} -c {count} {ip}")

    def result(self) -> PingResult:
        return parse_ping(self.host.waitOutput())


def udp_flows(host: Host, ip: str, flows: int, dst_port: int = 5001) -> None:
    """Send one datagram on each of `flows` distinct 5-tuples (source ports vary)."""
    host.cmd(f"for i in $(seq {flows}); do echo mrc > /dev/udp/{ip}/{dst_port}; done")
