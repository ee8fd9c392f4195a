"""Run a `Fabric` in Mininet: its topology (topologies.topos), host setup, link failures."""

from __future__ import annotations

import logging
import os
import subprocess
import time
from pathlib import Path

from mininet.link import Link as MnLink
from mininet.net import Mininet
from mininet.node import Host

from fabric_model.model import Fabric
from topologies import link_failure
from topologies.local_ports import reserve_local_ports
from topologies.mtu import DEFAULT_MTU
from topologies.p4switch import P4Switch
from topologies.queues import QueueOptions
from topologies.topos import FabricTopo

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


class FabricNetwork:
    """A started Mininet network for one fabric. `start()` returns switches not answering."""

    def __init__(self, fabric: Fabric, target: str, build_dir: Path, cpu_port: int = 255,
                 pcap: bool = False, queues: QueueOptions | None = None,
                 run_dir: Path | None = None, switch_log: bool = False,
                 link_failure_method: str = link_failure.DROP) -> None:
        self.fabric = fabric
        self.target = target
        self.build_dir = build_dir
        self.run_dir = run_dir or build_dir / "run"
        self.cpu_port = cpu_port
        self.pcap = pcap
        self.queues = queues or QueueOptions()
        self.switch_log = switch_log
        self.link_failure_method = link_failure_method
        self.net: Mininet | None = None
        self._blocked: dict[str, tuple[object, str]] = {}  # interface -> (Intf, mechanism)

    def _build(self) -> Mininet:
        switch_opts = dict(cls=P4Switch, target=self.target, cpu_port=self.cpu_port,
                           log_dir=self.build_dir / "logs", run_dir=self.run_dir,
                           pcap_dir=self.build_dir / "pcap" if self.pcap else None,
                           queues=self.queues, switch_log=self.switch_log)
        net = Mininet(topo=FabricTopo(self.fabric, switch_opts=switch_opts), build=False,
                      controller=None, host=Host, link=MnLink, autoSetMacs=False,
                      autoStaticArp=False)
        net.build()
        return net

    def start(self, ready_timeout: float = 30.0) -> list[str]:
        """Build and start everything; returns the names of switches whose gRPC never opened."""
        check_link_shaping(self.fabric)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.net = self._build()
        self._configure_switch_interfaces()
        self._configure_hosts()
        # every port before the first switch: waiting for one switch connects to its port
        # from an ephemeral port that could be the next switch's
        reserve_local_ports([p for sw in self.fabric.switches.values()
                             for p in (sw.grpc_port, sw.thrift_port)])
        self.net.start()  # starts the switch processes (they return at once)
        deadline = time.monotonic() + ready_timeout
        missing = [sw.name for sw in self.net.switches if not sw.wait_ready(deadline)]
        for name in missing:
            log.error("switch %s did not open its gRPC port (see %s)", name,
                      self.build_dir / "logs" / f"{name}.log")
        return missing

    def _configure_switch_interfaces(self) -> None:
        # no IPv6 chatter (router solicitations, MLD) into the switches
        names = [intf.name for sw in self.net.switches for intf in sw.intfList()
                 if intf.name != "lo"]
        args = " ".join(f"net.ipv6.conf.{n}.disable_ipv6=1" for n in names)
        self.net.switches[0].cmd(f"sysctl -qw {args}")
        # BMv2 reads its ports through libpcap, whose receive ring has frames sized for the
        # largest packet the interface may deliver: with segmentation offloads on (veth's
        # default) that is 64 KiB or more, so its 2 MB ring holds a handful of frames and
        # a burst is lost before the pipeline sees it (measured: 34 of 300 back-to-back
        # frames forwarded; 300 of 300 with the offloads off). Off, frames are MTU-sized.
        failed = self.net.switches[0].cmd(
            f"for n in {' '.join(names)}; do "
            "ethtool -K $n tso off gso off gro off >/dev/null 2>&1 || echo $n; done").split()
        if failed:
            raise ValueError("cannot turn segmentation offloads off on switch port "
                             f"{failed[0]} (ethtool -K)")
        if self.queues.mtu != DEFAULT_MTU:
            batch = self.build_dir / "switch-mtu.batch"
            batch.write_text("".join(f"link set dev {n} mtu {self.queues.mtu}\n" for n in names))
            out = self.net.switches[0].cmd(f"ip -batch {batch} 2>&1")
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

    def switch(self, name: str) -> P4Switch:
        return self.net.get(name)

    def set_link(self, a: str, b: str, up: bool, method: str | None = None) -> None:
        """Fail or restore the a-b link. `drop` (default) drops what both ends send with the
        interfaces up; `admin` sets them down, which freezes a BMv2 switch (see
        topologies.link_failure)."""
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
        self.net.stop()
        self.net = None
        for pid_file in self.run_dir.glob("h*.pid"):
            pid_file.unlink(missing_ok=True)
