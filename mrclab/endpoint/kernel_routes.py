"""Resolve a plane (source interface, IP, MAC and next-hop MAC) from the kernel's tables."""

from __future__ import annotations

import ipaddress
import json
import logging
import subprocess
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)


class RouteError(RuntimeError):
    """The kernel has no usable route or neighbour entry for a destination."""


@dataclass(slots=True, frozen=True)
class Plane:
    """One plane of a multi-NIC host: where to send frames toward one destination IP."""

    iface: str
    src_ip: str
    src_mac: str
    dst_ip: str
    next_hop_mac: str
    mtu: int


def _ip_json(*args: str) -> list[dict[str, object]]:
    try:
        res = subprocess.run(["ip", "-j", *args], capture_output=True, text=True, timeout=5,
                             check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RouteError(f"cannot run 'ip {' '.join(args)}': {exc}") from exc
    if res.returncode != 0:
        raise RouteError(res.stderr.strip() or f"'ip {' '.join(args)}' failed")
    return json.loads(res.stdout or "[]")


def read_arp_table(text: str) -> dict[tuple[str, str], str]:
    """Parse /proc/net/arp into {(ip, dev): mac} for complete entries."""
    table: dict[tuple[str, str], str] = {}
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 6 and int(fields[2], 16) & 0x2 and fields[3] != "00:00:00:00:00:00":
            table[(fields[0], fields[5])] = fields[3].lower()
    return table


def neighbour_mac(ip: str, iface: str) -> str:
    arp = read_arp_table(Path("/proc/net/arp").read_text())
    if (ip, iface) in arp:
        return arp[(ip, iface)]
    for entry in _ip_json("neigh", "show", "to", ip, "dev", iface):
        mac = entry.get("lladdr")
        if isinstance(mac, str) and entry.get("state") != ["FAILED"]:
            return mac.lower()
    # Not in the table (hosts normally have static ARP): ask once, on that interface.
    from scapy.layers.l2 import getmacbyip

    mac = getmacbyip(ip)
    if not mac:
        raise RouteError(f"no neighbour entry (ARP) for {ip} on {iface}")
    return mac.lower()


def resolve_plane(dst_ip: str, iface: str | None = None) -> Plane:
    """Route lookup as the kernel would do it (`ip route get`)."""
    try:
        ipaddress.IPv4Address(dst_ip)
    except ValueError as exc:
        raise RouteError(f"bad destination IPv4 address {dst_ip!r}") from exc
    args = ["route", "get", dst_ip] + (["oif", iface] if iface else [])
    routes = _ip_json(*args)
    if not routes:
        raise RouteError(f"no route to {dst_ip}")
    route = routes[0]
    dev = str(route.get("dev", ""))
    src = str(route.get("prefsrc", ""))
    if not dev or not src:
        raise RouteError(f"route to {dst_ip} has no device or source address: {route}")
    if dev == "lo":
        raise RouteError(f"{dst_ip} is a local address; sender and receiver must differ")
    gateway = str(route.get("gateway", dst_ip))
    sysfs = Path("/sys/class/net") / dev
    src_mac = (sysfs / "address").read_text().strip()
    mtu = int((sysfs / "mtu").read_text())
    plane = Plane(dev, src, src_mac, dst_ip, neighbour_mac(gateway, dev), mtu)
    log.info("plane to %s: %s", dst_ip, plane)
    return plane


def host_interfaces() -> list[str]:
    """Interfaces that are up and not loopback (where a receiver listens by default)."""
    names = []
    for link in _ip_json("link", "show", "up"):
        name = str(link.get("ifname", ""))
        if name and "LOOPBACK" not in link.get("flags", []):  # type: ignore[operator]
            names.append(name)
    return names
