"""Simple traffic from Mininet hosts for checks: background pings and UDP flow sets."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from mininet.node import Host

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


def mrc_transfer(src: Host, dst: Host, size: str, workdir: Path, cwd: Path,
                 timeout: float = 60.0) -> tuple[dict, dict]:
    """One MRC message src → dst with the endpoint CLI; returns (sender, receiver) stats."""
    workdir.mkdir(parents=True, exist_ok=True)
    recv_json, send_json = workdir / "recv.json", workdir / "send.json"
    endpoint = [sys.executable, "-m", "endpoint"]
    receiver = dst.popen([*endpoint, "recv", "--count", "1", "--out", str(workdir / "out"),
                          "--json", str(recv_json), "--timeout", str(timeout)],
                         cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if "listening" not in (receiver.stdout.readline() or ""):
            raise RuntimeError(f"receiver on {dst.name} did not start: "
                               f"{receiver.stderr.read().strip()[-200:]}")
        sender = src.popen([*endpoint, "send", "--dst", dst.IP(), "--size", size,
                            "--json", str(send_json), "--timeout", str(timeout)],
                           cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _, err = sender.communicate(timeout=timeout + 10)
        if sender.returncode != 0:
            raise RuntimeError(f"sender on {src.name} failed: {err.strip()[-200:]}")
        receiver.wait(timeout=30)
    finally:
        if receiver.poll() is None:
            receiver.kill()
            receiver.wait()
    return json.loads(send_json.read_text()), json.loads(recv_json.read_text())
