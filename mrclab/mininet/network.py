"""Run a `Fabric` in Mininet: its topology (mrclab.mininet.topos), host setup, link failures."""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from mininet.link import Link as MnLink
from mininet.net import Mininet
from mininet.node import Host

import mrclab.mininet.plain_loggers  # noqa: F401 (after Mininet: see there)
from mrclab.fabric.model import Fabric
from mrclab.mininet import link_failure
from mrclab.mininet.local_ports import reserve_local_ports
from mrclab.mininet.mtu import DEFAULT_MTU
from mrclab.mininet.p4switch import P4Switch
from mrclab.mininet.queues import QueueOptions
from mrclab.mininet.switch_shards import SwitchShard, available_cores, plan_shards
from mrclab.mininet.topos import FabricTopo

STEP_TIMEOUT_S = 120.0  # one bring-up command over every switch port


def _step(cmd: list[str], what: str) -> str:
    """Run one bring-up command; its output (stdout and stderr). A command that does not
    finish is an error naming the step, never a silent hang."""
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=STEP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ValueError(f"{what}: {cmd[0]} did not finish in {STEP_TIMEOUT_S:.0f} s") from None
    return proc.stdout + proc.stderr

log = logging.getLogger(__name__)


def qdisc_available(kind: str, args: str) -> bool:
    """Can tc create this qdisc here? Tried on the loopback of a throwaway namespace."""
    ns = f"mrcfab-tc-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], capture_output=True)
    try:
        result = subprocess.run(
            ["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root", kind,
             *args.split()], capture_output=True)
        return result.returncode == 0
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def check_link_shaping(fabric: Fabric) -> None:
    """Fail early, in one line, when the kernel cannot shape links as the spec asks."""
    params = [lk.params for lk in fabric.links]
    if any(p.delay is not None or p.loss_pct is not None for p in params) and \
            not qdisc_available("netem", "delay 1ms"):
        raise ValueError("link delay/loss needs the kernel's netem qdisc (sch_netem), "
                         "which is not available here")
    if any(p.bw_mbps is not None for p in params) and \
            not qdisc_available("htb", "default 1"):
        raise ValueError("link bandwidth needs the kernel's htb qdisc (sch_htb), "
                         "which is not available here")


class RecordedHost(Host):
    """A Mininet host whose shell's pid is recorded as soon as it exists, so a run killed
    before the network was up (even with SIGKILL) can be cleaned up (mrclab.lab.cleanup)."""

    def __init__(self, name: str, run_dir: Path, **params) -> None:
        self.run_dir = run_dir
        super().__init__(name, **params)

    def startShell(self, *args, **kwargs) -> None:
        super().startShell(*args, **kwargs)
        (self.run_dir / f"{self.name}.pid").write_text(f"{self.pid}\n")


@contextlib.contextmanager
def timed_step(steps: dict[str, float], name: str) -> Iterator[None]:
    """Record in `steps[name]` the seconds the block took (a step of a bring-up)."""
    start = time.monotonic()
    try:
        yield
    finally:
        steps[name] = time.monotonic() - start


class FabricNetwork:
    """A started Mininet network for one fabric. `start()` returns switches not answering."""

    def __init__(self, fabric: Fabric, target: str, build_dir: Path, cpu_port: int = 255,
                 pcap: bool = False, queues: QueueOptions | None = None,
                 run_dir: Path | None = None, switch_log: bool = False,
                 link_failure_method: str = link_failure.DROP,
                 switch_processes: int | None = None) -> None:
        """`switch_processes`: p4emu switches run in that many `p4emu fabric` processes
        (mrclab.mininet.switch_shards; None: one per core, 0: one process per switch, as
        BMv2's always are, and as with `switch_log`)."""
        if switch_processes is not None and switch_processes < 0:
            raise ValueError(f"switch processes {switch_processes}: must be 0 or more")
        self.fabric = fabric
        self.target = target
        self.build_dir = build_dir
        self.run_dir = run_dir or build_dir / "run"
        self.cpu_port = cpu_port
        self.pcap = pcap
        self.queues = queues or QueueOptions()
        self.switch_log = switch_log
        self.link_failure_method = link_failure_method
        if target == "bmv2" or switch_log:  # a packet log per switch needs its own process
            switch_processes = 0
        self.switch_processes = available_cores() if switch_processes is None \
            else switch_processes
        self.shards: list[SwitchShard] = []
        self.net: Mininet | None = None
        self._blocked: dict[str, tuple[object, str]] = {}  # interface -> (Intf, mechanism)
        self.phases: dict[str, float] = {}  # seconds each step of start() took

    def _build(self) -> Mininet:
        switch_opts = dict(cls=P4Switch, target=self.target, cpu_port=self.cpu_port,
                           log_dir=self.build_dir / "logs", run_dir=self.run_dir,
                           pcap_dir=self.build_dir / "pcap" if self.pcap else None,
                           queues=self.queues, switch_log=self.switch_log)
        host = partial(RecordedHost, run_dir=self.run_dir)
        net = Mininet(topo=FabricTopo(self.fabric, switch_opts=switch_opts), build=False,
                      controller=None, host=host, link=MnLink, autoSetMacs=False,
                      autoStaticArp=False)
        self.net = net  # before building: an interrupted build is stopped with what it made
        net.build()
        if self.switch_processes:
            for i, names in enumerate(plan_shards(self.fabric, self.switch_processes), 1):
                members = [net.get(n) for n in names]
                shard = SwitchShard(f"shard{i}", members, self.build_dir / "logs", self.run_dir)
                for member in members:
                    member.join(shard)
                self.shards.append(shard)
        return net

    def start(self, ready_timeout: float = 30.0,
              on_launched: Callable[[], None] = lambda: None) -> list[str]:
        """Build and start everything; returns the names of switches whose gRPC never opened.

        `on_launched` runs once the switch processes are started, before they are waited
        for: the lab starts its controller there, so that the controller's own start
        (about 0.4 s of imports) overlaps the switches'."""
        check_link_shaping(self.fabric)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with timed_step(self.phases, "mininet_build_s"):
            self.net = self._build()
        with timed_step(self.phases, "interfaces_s"):
            self._configure_switch_interfaces()
            self._configure_hosts()
        # every port before the first switch: waiting for one switch connects to its port
        # from an ephemeral port that could be the next switch's
        reserve_local_ports([p for sw in self.fabric.switches.values()
                             for p in (sw.grpc_port, sw.thrift_port)])
        with timed_step(self.phases, "switches_s"):
            self.net.start()  # starts the switch processes (they return at once)
            on_launched()
            deadline = time.monotonic() + ready_timeout
            missing = [sw.name for sw in self.net.switches if not sw.wait_ready(deadline)]
        for name in missing:
            log.error("switch %s did not open its gRPC port (see %s)", name,
                      self.switch(name).log_file)
        return missing

    def _configure_switch_interfaces(self) -> None:
        """The switch ports (in the root namespace) set up by commands run from here, not
        typed into a Mininet shell: a shell's terminal takes lines of at most 4095 bytes,
        and a k=8 fat-tree's 640 ports made one command several times that (the shell
        then waited for the rest of the line: bring-up hung without a word)."""
        names = [intf.name for sw in self.net.switches for intf in sw.intfList()
                 if intf.name != "lo"]
        # no IPv6 chatter (router solicitations, MLD) into the switches
        _step(["sysctl", "-qw", *(f"net.ipv6.conf.{n}.disable_ipv6=1" for n in names)],
              "disabling IPv6 on the switch ports")
        # BMv2 reads its ports through libpcap, whose receive ring has frames sized for the
        # largest packet the interface may deliver: with segmentation offloads on (veth's
        # default) that is 64 KiB or more, so its 2 MB ring holds a handful of frames and
        # a burst is lost before the pipeline sees it (measured: 34 of 300 back-to-back
        # frames forwarded; 300 of 300 with the offloads off). Off, frames are MTU-sized.
        script = self.build_dir / "switch-offloads.sh"
        script.write_text("".join(f"ethtool -K {n} tso off gso off gro off >/dev/null 2>&1 "
                                  f"|| echo {n}\n" for n in names))
        failed = _step(["sh", str(script)], "turning offloads off on the switch ports").split()
        if failed:
            raise ValueError("cannot turn segmentation offloads off on switch port "
                             f"{failed[0]} (ethtool -K)")
        if self.queues.mtu != DEFAULT_MTU:
            batch = self.build_dir / "switch-mtu.batch"
            batch.write_text("".join(f"link set dev {n} mtu {self.queues.mtu}\n" for n in names))
            out = _step(["ip", "-batch", str(batch)], f"setting MTU {self.queues.mtu}")
            if out.strip():
                raise ValueError(f"cannot set MTU {self.queues.mtu} on the switch ports: "
                                 f"{out.strip().splitlines()[0]}")

    def _configure_hosts(self) -> None:
        arp_dir = self.build_dir / "arp"
        arp_dir.mkdir(parents=True, exist_ok=True)
        for host in self.fabric.hosts.values():
            node = self.net.get(host.name)
            (self.run_dir / f"{host.name}.pid").write_text(f"{node.pid}\n")
            node.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                     "net.ipv6.conf.default.disable_ipv6=1")
            batch = []
            for nic in host.nics:
                intf = node.intf(host.interface(nic.index))  # addressed by the Topo
                # software checksums: the switch forwards bytes as captured
                node.cmd(f"ethtool -K {intf.name} tx off rx off sg off tso off gso off gro off"
                         " >/dev/null 2>&1")
                if self.queues.mtu != DEFAULT_MTU:
                    batch.append(f"link set dev {intf.name} mtu {self.queues.mtu}")
                for other in self.fabric.hosts.values():
                    if other.name == host.name:
                        continue
                    for onic in other.nics:
                        if onic.plane == nic.plane:
                            batch.append(f"neigh replace {onic.ip} lladdr {onic.mac} "
                                         f"dev {intf.name} nud permanent")
            batch_file = arp_dir / f"{host.name}.batch"
            batch_file.write_text("\n".join(batch) + "\n")
            node.cmd(f"ip -batch {batch_file}")

    def layout(self) -> str:
        """How the switches run, for the user: 'switches in 2 p4emu processes (...)'."""
        if not self.shards:
            return "one process per switch"
        return f"switches in {len(self.shards)} p4emu processes (" + "; ".join(
            f"{sh.name}: {' '.join(m.name for m in sh.members)}" for sh in self.shards) + ")"

    def switch(self, name: str) -> P4Switch:
        return self.net.get(name)

    def set_link(self, a: str, b: str, up: bool, method: str | None = None) -> None:
        """Fail or restore the a-b link. `drop` (default) drops what both ends send with the
        interfaces up; `admin` sets them down, which freezes a BMv2 switch (see
        mrclab.mininet.link_failure)."""
        method = method or self.link_failure_method
        if method not in link_failure.METHODS:
            raise ValueError(f"unknown link failure method {method!r} "
                             f"(known: {', '.join(link_failure.METHODS)})")
        for node in (a, b):
            if node not in self.net.nameToNode:
                raise KeyError(f"unknown node {node!r}")
        connections = self.net.get(a).connectionsTo(self.net.get(b))
        if not connections:
            raise KeyError(f"{a} and {b} are not connected")
        for pair in connections:
            for intf in pair:
                if method == link_failure.ADMIN:
                    link_failure.set_admin(intf, up)
                elif not up:
                    if intf.name not in self._blocked:
                        self._blocked[intf.name] = (intf, link_failure.block(intf))
                elif intf.name in self._blocked:
                    link_failure.unblock(*self._blocked.pop(intf.name))

    def stop(self) -> None:
        if self.net is None:
            return
        for intf, mechanism in self._blocked.values():  # host ends go with their namespace,
            link_failure.unblock(intf, mechanism)       # switch ends live in the root one
        self._blocked.clear()
        # a signal that came while a node's shell ran a command leaves it `waiting` for an
        # end marker that will never come: Mininet's stop would then refuse that node
        # (AssertionError) after blocking on it. Interrupt the command and forget it.
        for node in [*self.net.hosts, *self.net.switches]:
            if getattr(node, "waiting", False) and getattr(node, "shell", None):
                node.sendInt()
                node.waiting = False
        try:
            self.net.stop()
        finally:
            self.net = None
        for pid_file in self.run_dir.glob("h*.pid"):
            pid_file.unlink(missing_ok=True)
