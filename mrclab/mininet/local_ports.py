"""The switches' local TCP ports (gRPC, Thrift): whether one listens, and keeping the
kernel from handing them out as source ports."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

log = logging.getLogger(__name__)

RESERVED_PORTS = Path("/proc/sys/net/ipv4/ip_local_reserved_ports")


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def reserve_local_ports(ports: list[int], path: Path = RESERVED_PORTS) -> None:
    """Keep the kernel from giving these ports to outgoing connections as their source port.

    The switches' gRPC ports (50100 and up) lie in Linux's ephemeral range (32768-60999),
    and a client's connection once held one when its switch started ("Address already in
    use"). Reserving is system-wide and stays after the run; it only narrows the ports the
    kernel picks by itself."""
    try:
        current = path.read_text().strip()
    except OSError:
        return  # not Linux, or no such sysctl: nothing to protect against
    covered: list[tuple[int, int]] = []
    for part in filter(None, current.split(",")):
        lo, _, hi = part.partition("-")
        covered.append((int(lo), int(hi or lo)))
    missing = sorted({p for p in ports if not any(lo <= p <= hi for lo, hi in covered)})
    if not missing:
        return
    try:
        path.write_text(",".join(filter(None, [current, *map(str, missing)])) + "\n")
    except OSError as exc:  # not root: the lab checks for root before it gets here
        log.warning("cannot reserve ports %s for the switches: %s", missing, exc)
