"""Helpers for integration tests on a running `Lab`: topology look-ups, P4 counters and
endpoint transfers between Mininet hosts."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from lab.lab import Lab
from topologies.p4switch import REPO_ROOT


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
    ports = lab.ask("counters", switch=switch)["ports"]
    return {int(p): row.get(counter, 0) for p, row in ports.items()}


def delta(before: dict[int, int], after: dict[int, int]) -> dict[int, int]:
    return {p: after[p] - before.get(p, 0) for p in after}


def link_events(lab: Lab, start: int, a: str, b: str, status: str | None = None) -> list[dict]:
    """Reconvergence events after index `start` for the link between switches a and b.

    Matching the link matters: under CPU load a probe can miss on some other link for a
    moment, and that event must not stand in for the one a test caused."""
    out = []
    for event in lab.ask("reconvergence")[start:]:
        ends = {end.split(":")[0] for end in event["link"].split("-")}
        if ends == {a, b} and (status is None or event["status"] == status):
            out.append(event)
    return out


def endpoint_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "endpoint", *args]


def run_transfer(lab: Lab, tmp: Path, senders: list[str], dst: str, size: str,
                 during=None, timeout: float = 120, send_args: tuple[str, ...] = ()
                 ) -> tuple[dict, list[dict]]:
    """Receive one message from each sender on `dst`; returns (receiver, sender stats).

    Senders address every NIC of `dst`, so a multi-plane host is reached on all planes."""
    out_dir = tmp / "recv"
    out_dir.mkdir(parents=True, exist_ok=True)
    recv_json = tmp / "recv.json"
    receiver = host(lab, dst).popen(endpoint_cmd(
        "recv", "--count", str(len(senders)), "--out", str(out_dir), "--json", str(recv_json),
        "--timeout", str(timeout)), cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert "listening" in receiver.stdout.readline()
        procs = []
        for i, src in enumerate(senders):
            procs.append(host(lab, src).popen(endpoint_cmd(
                "send", "--dst", ",".join(nic.ip for nic in lab.fabric.hosts[dst].nics),
                "--size", size, "--seed", str(i + 1),
                "--json", str(tmp / f"send-{src}.json"), "--timeout", str(timeout),
                *send_args),
                cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        if during is not None:
            during()
        for src, proc in zip(senders, procs, strict=True):
            out, err = proc.communicate(timeout=timeout + 10)
            (tmp / f"send-{src}.log").write_text(out + err)  # progress lines, for diagnosis
            assert proc.returncode == 0, err
        receiver.wait(timeout=30)
    finally:
        if receiver.poll() is None:
            receiver.kill()
    sent = [json.loads((tmp / f"send-{src}.json").read_text()) for src in senders]
    received = json.loads(recv_json.read_text())
    digests = {hashlib.sha256(p.read_bytes()).hexdigest() for p in out_dir.iterdir()}
    assert {s["sha256"] for s in sent} == digests
    return received, sent


def core_tx_total(lab: Lab) -> dict[str, int]:
    cores = [n for n, sw in lab.fabric.switches.items() if sw.role == "core"]
    return {c: sum(tx(lab, c).values()) for c in cores}


