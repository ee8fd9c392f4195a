"""Helpers for integration tests on a running `Lab`: topology look-ups, P4 counters and
endpoint transfers between Mininet hosts."""

from __future__ import annotations

from pathlib import Path

from mrclab.endpoint.report import ReceiverReport, SenderReport
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.lab.counters import switch_counters
from mrclab.lab.lab import Lab
from mrclab.lab.transfers import transfer


def host(lab: Lab, name: str):
    return lab.net.net.get(name)


def attachment(lab: Lab, name: str) -> tuple[str, int]:
    nic = lab.fabric.hosts[name].nics[0]
    return nic.switch, nic.switch_port


def port_towards(lab: Lab, switch: str, peer: str) -> int:
    ports = [p for p, peer_ref in lab.fabric.switches[switch].ports.items()
             if peer_ref.node == peer]
    assert len(ports) == 1, (switch, peer, ports)
    return ports[0]


def peers_with_role(lab: Lab, switch: str, role: str) -> dict[str, int]:
    """Neighbours of `switch` with the given role, and the port towards each."""
    out = {}
    for port, peer in lab.fabric.switches[switch].ports.items():
        node = lab.fabric.switches.get(peer.node)
        if node is not None and node.role == role:
            out[node.name] = port
    return out


def tx(lab: Lab, switch: str, counter: str = "tx_packets") -> dict[int, int]:
    """One of the P4 port counters (`mrclab.lab.counters.P4PortCounters`) of every port."""
    return {p: getattr(row, counter) for p, row in switch_counters(lab, switch).ports.items()}


def delta(before: dict[int, int], after: dict[int, int]) -> dict[int, int]:
    return {p: after[p] - before.get(p, 0) for p in after}


def link_events(lab: Lab, start: int, a: str, b: str,
                status: str | None = None) -> list[Reconvergence]:
    """Reconvergence events after index `start` for the link between switches a and b.

    Matching the link matters: under CPU load a probe can miss on some other link for a
    moment, and that event must not stand in for the one a test caused."""
    return [event for event in lab.reconvergences()[start:]
            if event.joins(a, b) and (status is None or event.status == status)]


def run_transfer(lab: Lab, tmp: Path, senders: list[str], dst: str, size: str,
                 during=None, timeout: float = 120, send_args: tuple[str, ...] = ()
                 ) -> tuple[ReceiverReport, list[SenderReport]]:
    """Receive one message from each sender on `dst`, all intact; (receiver, senders)."""
    result = transfer(lab, senders, dst, size, tmp, during=during, timeout=timeout,
                      send_args=send_args)
    assert {s.sha256 for s in result.senders} == result.digests
    return result.receiver, result.senders


def core_tx_total(lab: Lab) -> dict[str, int]:
    cores = [n for n, sw in lab.fabric.switches.items() if sw.role == "core"]
    return {c: sum(tx(lab, c).values()) for c in cores}


