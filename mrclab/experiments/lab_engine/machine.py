"""What the machine did during a run: CPU use, switch receive backlog, frames switches lost.

Three measurements feed the faithful-emulation check (`mrclab.experiments.validity`), taken
over a run by `Monitor`:
- CPU: busy share of all cores (psutil) between two snapshots;
- backlog: bytes waiting in the switches' packet sockets (/proc/net/packet `Rmem`, root
  namespace), sampled every 100 ms: frames that arrived but that the switch has not read
  yet, a queue the emulated switch does not model;
- ingress loss (p4emu): frames the kernel delivered to a switch interface (its rx counter)
  that the switch never read (its own rx counter, `port_stats`), i.e. lost in the socket
  buffer because the switch fell behind.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass, fields
from pathlib import Path

import psutil

from mrclab.experiments.records import FabricCounters, PortCounters
from mrclab.experiments.validity import Measured
from mrclab.lab.lab import Lab
from p4emu.switch.runtime_cli import CliError, RuntimeClient

SYS_NET = Path("/sys/class/net")


def cpu_snapshot() -> tuple[float, float, float]:
    """(busy, nice, total) CPU seconds over all cores; busy excludes niced work, which
    yields to the lab (a background build must not make every run look CPU-bound)."""
    t = psutil.cpu_times()
    idle = t.idle + t.iowait
    total = t.user + t.nice + t.system + idle + t.irq + t.softirq + t.steal
    return total - idle - t.nice, t.nice, total


def cpu_shares(before: tuple[float, float, float], after: tuple[float, float, float]
               ) -> tuple[float | None, float | None]:
    """(busy, nice) shares of all cores between two snapshots."""
    total = after[2] - before[2]
    if total <= 0:
        return None, None
    return (after[0] - before[0]) / total, (after[1] - before[1]) / total


def switch_interfaces(lab: Lab) -> dict[str, tuple[str, int]]:
    """Interface name -> (switch, port) for every switch port of the lab."""
    return {sw.interface(port): (name, port) for name, sw in lab.fabric.switches.items()
            for port in sw.ports}


def kernel_rx(ifaces: list[str]) -> dict[str, int]:
    out = {}
    for name in ifaces:
        with contextlib.suppress(OSError, ValueError):
            out[name] = int((SYS_NET / name / "statistics" / "rx_packets").read_text())
    return out


def p4emu_port_stats(lab: Lab) -> dict[str, dict[int, dict[str, int]]] | None:
    """rx/tx/queue-drop counts per switch port, as p4emu counts them (None on BMv2)."""
    if lab.target == "bmv2":
        return None
    stats: dict[str, dict[int, dict[str, int]]] = {}
    for name, sw in lab.fabric.switches.items():
        client = RuntimeClient("127.0.0.1", sw.thrift_port)
        try:
            ok, lines = client.run("port_stats")
        finally:
            client.close()
        if not ok:
            raise CliError(f"{name}: port_stats: {lines[0] if lines else '?'}")
        rows = {}
        for line in lines[1:]:
            cols = line.split()
            rows[int(cols[0])] = {"rx": int(cols[1]), "tx": int(cols[3]),
                                  "q_drop": int(cols[6])}
        stats[name] = rows
    return stats


@dataclass
class Snapshot:
    at: float
    cpu: tuple[float, float, float]
    kernel: dict[str, int]
    switch: dict[str, dict[int, dict[str, int]]] | None


def snapshot(lab: Lab) -> Snapshot:
    ifaces = switch_interfaces(lab)
    # switch counters first: a frame counted by the kernel after this is in flight
    switch = p4emu_port_stats(lab)
    return Snapshot(time.time(), cpu_snapshot(), kernel_rx(list(ifaces)), switch)


def ingress_loss(lab: Lab, before: Snapshot, after: Snapshot) -> tuple[int, int] | None:
    """(frames delivered to switch interfaces, of those not read by the switch), p4emu only."""
    if before.switch is None or after.switch is None:
        return None
    delivered = lost = 0
    for iface, (sw, port) in switch_interfaces(lab).items():
        if iface not in before.kernel or iface not in after.kernel:
            continue
        k = after.kernel[iface] - before.kernel[iface]
        s = (after.switch.get(sw, {}).get(port, {}).get("rx", 0)
             - before.switch.get(sw, {}).get(port, {}).get("rx", 0))
        delivered += k
        lost += max(0, k - s)
    return delivered, lost




def _ifindexes(ifaces: list[str]) -> set[int]:
    out = set()
    for name in ifaces:
        with contextlib.suppress(OSError, ValueError):
            out.add(int((SYS_NET / name / "ifindex").read_text()))
    return out


def packet_socket_backlog(indexes: set[int]) -> list[int]:
    """Rmem (bytes queued) of every packet socket bound to one of `indexes`."""
    out = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/packet").read_text().splitlines()[1:]:
            cols = line.split()
            if len(cols) >= 7 and int(cols[4]) in indexes:
                out.append(int(cols[6]))
    return out


class BacklogSampler:
    """Samples the switch sockets' receive backlog in a thread while a run goes on."""

    def __init__(self, lab: Lab, period: float = 0.1) -> None:
        self.indexes = _ifindexes(list(switch_interfaces(lab)))
        self.period = period
        self.samples: list[int] = []  # per sample: the largest backlog of one socket
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="backlog", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            values = packet_socket_backlog(self.indexes)
            self.samples.append(max(values, default=0))

    def __enter__(self) -> BacklogSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Monitor:
    """Measures the machine over a `with` block: CPU, switch socket backlog, ingress loss."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.measured: Measured | None = None

    def __enter__(self) -> Monitor:
        self.before = snapshot(self.lab)
        self.sampler = BacklogSampler(self.lab).__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sampler.__exit__()
        after = snapshot(self.lab)
        busy, nice = cpu_shares(self.before.cpu, after.cpu)
        loss = ingress_loss(self.lab, self.before, after)
        # BMv2 reads its ports through packet rings, whose bytes /proc does not count as
        # backlog: its samples would say 0 where nothing is known
        backlog = self.sampler.samples if self.lab.target != "bmv2" else []
        self.measured = Measured(
            seconds=after.at - self.before.at, cpu_busy=busy, cpu_nice=nice,
            backlog_samples=backlog,
            delivered=None if loss is None else loss[0], lost=None if loss is None else loss[1],
            load_average=load_average())


def port_counters(lab: Lab, switches: list[str] | None = None) -> FabricCounters:
    """Kernel counters of switch ports (tx/rx bytes and packets), per switch and port.

    Read from /sys, not over P4Runtime: instant on both targets, while the controller's
    counter reads take ~1 s per switch on a loaded machine (too slow to time a failure)."""
    out: FabricCounters = {}
    for name in switches or list(lab.fabric.switches):
        sw = lab.fabric.switches[name]
        rows = {}
        for port in sw.ports:
            stats = SYS_NET / sw.interface(port) / "statistics"
            row = PortCounters()
            for f in fields(PortCounters):  # the kernel's names for them
                with contextlib.suppress(OSError, ValueError):
                    setattr(row, f.name, int((stats / f.name).read_text()))
            rows[port] = row
        out[name] = rows
    return out
