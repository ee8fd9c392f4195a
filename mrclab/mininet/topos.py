"""Mininet `Topo` classes for MRC fabrics: fat-tree, leaf-spine and multi-plane.

Each is a plain Mininet topology built from the fabric model (mrclab.fabric), so it works
wherever Mininet takes a Topo: `Mininet(topo=FatTreeTopo(k=4), switch=P4Switch, ...)`
in a script, or from the command line

    mn --custom mrclab/mininet/topos.py --topo fattree,4 --controller none \\
       --switch p4 --link tc

Switch port numbers, interface names, host addresses and MACs, and link shaping are those
of the model (see mrclab.fabric), so `build/topology.json` of the same spec describes this
network and the controller can program it. Switches are added with their device id and
P4Runtime/Thrift ports in the node parameters that P4Switch takes; a plain Mininet run
starts them without a program, for the controller (`python -m mrclab.controller`) to push.
"""

from __future__ import annotations

from mininet.link import TCLink
from mininet.topo import Topo

import mrclab.mininet.plain_loggers  # noqa: F401 (after Mininet: see there)
from mrclab.fabric.model import Fabric
from mrclab.fabric.spec import parse_spec
from mrclab.mininet.p4switch import P4Switch


class FabricTopo(Topo):
    """The Mininet topology of one `Fabric`. `switch_opts` go to every switch node."""

    def build(self, fabric: Fabric, switch_opts: dict | None = None) -> None:  # noqa: D102
        self.fabric = fabric
        for sw in fabric.switches.values():
            self.addSwitch(sw.name, device_id=sw.device_id, grpc_port=sw.grpc_port,
                           thrift_port=sw.thrift_port, **(switch_opts or {}))
        for host in fabric.hosts.values():
            first = host.nics[0]
            self.addHost(host.name, ip=f"{first.ip}/{first.prefix_len}", mac=first.mac)
        for link in fabric.links:
            opts: dict[str, object] = dict(link.params.as_tclink_kwargs())
            if opts:
                opts["cls"] = TCLink
            for end, node, port in (("1", link.a, link.a_port), ("2", link.b, link.b_port)):
                if node in fabric.switches:
                    opts[f"intfName{end}"] = fabric.switches[node].interface(port)
                else:  # a host NIC: its address and MAC, on every plane's NIC
                    host = fabric.hosts[node]
                    nic = next(n for n in host.nics if n.index == port)
                    opts[f"intfName{end}"] = host.interface(nic.index)
                    opts[f"addr{end}"] = nic.mac
                    opts[f"params{end}"] = {"ip": f"{nic.ip}/{nic.prefix_len}"}
            self.addLink(link.a, link.b, port1=link.a_port, port2=link.b_port, **opts)


class SpecTopo(FabricTopo):
    """The topology of a spec string such as `fattree:k=4,bw=100`."""

    def build(self, spec: str, switch_opts: dict | None = None) -> None:  # noqa: D102
        super().build(parse_spec(spec), switch_opts)


class FatTreeTopo(SpecTopo):
    """k-ary fat-tree: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 cores."""

    def build(self, k: int = 4, **opts: object) -> None:  # noqa: D102
        super().build(f"fattree:k={k}", **opts)


class LeafSpineTopo(SpecTopo):
    """Two-tier Clos: every leaf connects to every spine, `hosts` hosts per leaf."""

    def build(self, leaves: int = 4, spines: int = 2, hosts: int = 2,
              **opts: object) -> None:  # noqa: D102
        super().build(f"leafspine:leaves={leaves},spines={spines},hosts={hosts}", **opts)


class MultiPlaneTopo(SpecTopo):
    """`planes` copies of a base fabric; every host has one NIC per plane."""

    def build(self, planes: int = 2, base: str = "fattree:k=4",
              **opts: object) -> None:  # noqa: D102
        super().build(f"multiplane:planes={planes},base={base}", **opts)


# `mn --custom mrclab/mininet/topos.py --topo NAME,ARGS`
topos = {"fattree": FatTreeTopo, "leafspine": LeafSpineTopo, "multiplane": MultiPlaneTopo}
switches = {"p4": P4Switch}  # `mn --custom ... --switch p4`
