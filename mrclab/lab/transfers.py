"""MRC transfers and raw bursts between a running lab's hosts, with the endpoint CLI.

The one way tests, checkers and the demo move MRC traffic through a lab: `transfer` runs
one receiver and one sender per source host (every sender addresses all of the
destination's NICs, so a multi-plane host is reached on every plane) and returns their
reports (`mrclab.endpoint.report`); `blast` sends raw MRC packets (`python -m mrclab.endpoint blast`) and returns its
summary. Failures are one-line `TransferError`s; no process outlives the call.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mrclab.endpoint.report import BlastStats, ReceiverReport, SenderReport
from mrclab.lab.counters import switch_counters
from mrclab.lab.lab import Lab

ENDPOINT = (sys.executable, "-m", "mrclab.endpoint")


class TransferError(RuntimeError):
    """A transfer or burst could not be run or did not finish; one-line message."""


@dataclass
class TransferResult:
    receiver: ReceiverReport  # `recv --json`
    senders: list[SenderReport]  # `send --json` of each sender, in the senders' order
    digests: set[str]  # sha256 of every message the receiver wrote


def once_delivering(lab: Lab, dst: str, packets: int, then: Callable[[], object],
                    timeout: float = 20.0, poll_s: float = 0.02) -> Callable[[], object]:
    """A `during` for `transfer`: `then()` once `packets` more have left the switch port
    of `dst`'s first NIC (its P4 egress counter). A failure meant for the middle of a
    transfer lands there however fast the machine forwards (a fixed delay missed an
    8 MB transfer that took 0.7 s once the switches ran in C). After `timeout` s without
    them, `then()` all the same."""
    nic = lab.fabric.hosts[dst].nics[0]

    def sent() -> int:
        return switch_counters(lab, nic.switch).ports[nic.switch_port].tx_packets

    def during() -> object:
        start, deadline = sent(), time.monotonic() + timeout
        while sent() - start < packets and time.monotonic() < deadline:
            time.sleep(poll_s)
        return then()

    return during


def transfer(lab: Lab, senders: Sequence[str], dst: str, size: str, workdir: Path, *,
             endpoint: Sequence[str] = ENDPOINT, during: Callable[[], object] | None = None,
             timeout: float = 90.0, send_args: Sequence[str] = ()) -> TransferResult:
    """One message of `size` (endpoint syntax: 512K, 8M) from each sender host to `dst`.

    `endpoint` is the command that runs the endpoint CLI (e.g. a student's version);
    `during()` runs while the senders send (e.g. to fail a link); logs of each sender go
    to workdir/send-<host>.log for diagnosis."""
    workdir.mkdir(parents=True, exist_ok=True)
    out_dir = workdir / "recv"
    out_dir.mkdir(exist_ok=True)
    net = lab.net.net
    addresses = ",".join(nic.ip for nic in lab.fabric.hosts[dst].nics)
    receiver = net.get(dst).popen(
        [*endpoint, "recv", "--count", str(len(senders)), "--out", str(out_dir),
         "--json", str(workdir / "recv.json"), "--timeout", str(timeout)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    procs: list[subprocess.Popen] = []
    try:
        if "listening" not in (receiver.stdout.readline() or ""):
            raise TransferError(f"receiver on {dst} did not start: "
                                f"{receiver.stderr.read().strip()[-200:]}")
        for i, src in enumerate(senders):
            procs.append(net.get(src).popen(
                [*endpoint, "send", "--dst", addresses, "--size", size, "--seed", str(i + 1),
                 "--json", str(workdir / f"send-{src}.json"), "--timeout", str(timeout),
                 *send_args],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        if during is not None:
            during()
        for src, proc in zip(senders, procs, strict=True):
            out, err = proc.communicate(timeout=timeout + 15)
            (workdir / f"send-{src}.log").write_text(out + err)
            if proc.returncode != 0:
                raise TransferError(f"sender on {src} failed: {err.strip()[-200:]}")
        receiver.wait(timeout=30)
    except subprocess.TimeoutExpired:
        raise TransferError(f"the transfer did not finish within {timeout:.0f} s") from None
    finally:
        for proc in [*procs, receiver]:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    try:
        reports = [SenderReport.from_json(json.loads((workdir / f"send-{src}.json").read_text()))
                   for src in senders]
        received = ReceiverReport.from_json(json.loads((workdir / "recv.json").read_text()))
    except (OSError, ValueError):
        raise TransferError("a sender or the receiver wrote no summary (crashed?)") from None
    digests = {hashlib.sha256(p.read_bytes()).hexdigest() for p in out_dir.iterdir()}
    return TransferResult(received, reports, digests)


def blast(lab: Lab, src: str, dst: str, *args: str,
          endpoint: Sequence[str] = ENDPOINT) -> BlastStats:
    """`endpoint blast` from host `src` to `dst`'s first NIC: what it sent."""
    out = lab.net.net.get(src).cmd(" ".join(
        [*endpoint, "blast", "--dst", lab.fabric.hosts[dst].nics[0].ip, *args]))
    try:
        return BlastStats.from_json(json.loads(out.strip().splitlines()[-1]))
    except (ValueError, IndexError, TypeError, AttributeError):
        raise TransferError(f"blast from {src} failed: {out.strip()[-160:]}") from None
