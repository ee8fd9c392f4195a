"""Switch shards: the p4emu switches of a lab run in as many `p4emu fabric` processes as
there are cores, each with one data-plane loop, instead of one process per switch.

A process per switch pays, per packet-hop, a wake-up and a process switch, and its
interpreter, compiled program and gRPC threads once per switch (80 times at k=8 on a
2-core machine). A shard runs several switches in one process; each keeps its device id,
ports, gRPC and Thrift ports, log of packets and captures, so the controller, `mrclab
shell` and BMv2-style clients see no difference. What the switches of one shard share is
their fate: a shard that is killed takes all its switches down, and restarting one of them
restarts the shard (the controller re-programs each as it comes back).

Switches are grouped by pod (and plane), so a shard holds whole pods and its own core
switches; units go to the shard with the fewest ports so far, largest first.
"""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from mrclab.fabric.model import Fabric, SwitchNode
from mrclab.mininet.local_ports import reserve_local_ports
from mrclab.processes import start_recorded, stop_process_group

log = logging.getLogger(__name__)


def available_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _unit_of(sw: SwitchNode) -> tuple[int, str]:
    """Switches that go to one shard together: a pod of one plane, or a switch alone."""
    return (sw.plane, f"pod{sw.pod}" if sw.pod is not None else sw.name)


def plan_shards(fabric: Fabric, count: int) -> list[list[str]]:
    """The switch names of each shard: at most `count` shards, none empty, balanced by
    ports (a port is a share of the packets a switch handles)."""
    if count < 1:
        raise ValueError(f"switch processes {count}: must be at least 1")
    units: dict[tuple[int, str], list[SwitchNode]] = {}
    for sw in fabric.switches.values():
        units.setdefault(_unit_of(sw), []).append(sw)
    ordered = sorted(units.values(), key=lambda members: (
        -sum(len(sw.ports) for sw in members), members[0].plane, members[0].name))
    shards: list[list[str]] = [[] for _ in range(min(count, len(ordered)))]
    load = [0] * len(shards)
    for members in ordered:
        i = min(range(len(shards)), key=lambda j: (load[j], j))
        shards[i] += [sw.name for sw in members]
        load[i] += sum(len(sw.ports) for sw in members)
    return [sorted(names, key=lambda n: fabric.switches[n].device_id) for names in shards]


class ShardMember(Protocol):
    """What a shard needs of each of its switches (mrclab.mininet.p4switch.P4Switch)."""

    name: str
    grpc_port: int
    thrift_port: int

    def switch_args(self) -> list[str]: ...


class SwitchShard:
    """One `p4emu fabric` process running `members`."""

    def __init__(self, name: str, members: Sequence[ShardMember], log_dir: Path,
                 run_dir: Path) -> None:
        self.name = name
        self.members = list(members)
        self.log_file = Path(log_dir).resolve() / f"{name}.log"
        self.pid_file = Path(run_dir).resolve() / f"{name}.pid"
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "p4emu", "fabric"]
        for member in self.members:
            cmd += ["--switch", shlex.join(member.switch_args())]
        return cmd

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Start the process unless it runs (every member's start asks; the first one
        starts it, with every member's ports, which exist once Mininet has built them)."""
        if self.alive():
            return
        reserve_local_ports([p for m in self.members for p in (m.grpc_port, m.thrift_port)])
        self.process = start_recorded(self.command(), self.log_file, self.pid_file)
        log.debug("%s (%s): started pid %d", self.name,
                  " ".join(m.name for m in self.members), self.process.pid)

    def forget(self) -> None:
        """After the process was stopped (here or by a batch stop): no pid file left."""
        self.process = None
        self.pid_file.unlink(missing_ok=True)

    def stop(self) -> None:
        if self.process is not None:
            stop_process_group(self.process)
        self.forget()
