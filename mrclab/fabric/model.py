"""Pure data model of a fabric: switches, hosts with NICs, links with port numbers.

No Mininet here. Generators build a `Fabric`; the Mininet builder, the topology.json writer
and the controller all read it.

Addressing scheme (documented in mrclab/mininet/__init__.py):
  host NIC on plane P, group G (fat-tree pod / leaf index), host index H (1-based in group):
  IP 10.P.G.H, prefix /16 per plane (one subnet per plane; a single-plane fabric uses /8),
  MAC 02:00:0a:PP:GG:HH.
Switch ports are numbered from 1 in the order links are added; host NIC n is `<host>-eth<n>`
and connects plane n. Switch interfaces live in the root namespace, so their names carry a
tag that differs between labs running side by side (see generators.interface_tag).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LinkParams:
    """TCLink shaping for one link; None = unshaped."""

    bw_mbps: float | None = None
    delay: str | None = None  # tc syntax, e.g. "1ms"
    loss_pct: float | None = None

    def as_tclink_kwargs(self) -> dict[str, object]:
        kwargs: dict[str, object] = {}
        if self.bw_mbps is not None:
            kwargs["bw"] = self.bw_mbps
        if self.delay is not None:
            kwargs["delay"] = self.delay
        if self.loss_pct is not None:
            kwargs["loss"] = self.loss_pct
        return kwargs


@dataclass
class SwitchNode:
    name: str
    role: str  # core / agg / edge / spine / leaf
    plane: int
    device_id: int
    grpc_port: int
    thrift_port: int
    pod: int | None = None
    ports: dict[int, PortPeer] = field(default_factory=dict)
    intf_tag: str = "eth"  # interface names: <switch>-<tag><port>

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def interface(self, port: int) -> str:
        return f"{self.name}-{self.intf_tag}{port}"


@dataclass(frozen=True)
class PortPeer:
    """What a switch port connects to: a node and its port (a host's NIC index)."""

    node: str
    port: int


@dataclass
class HostNic:
    index: int  # NIC index == plane
    plane: int
    ip: str
    prefix_len: int
    mac: str
    switch: str = ""
    switch_port: int = 0


@dataclass
class HostNode:
    name: str
    group: int
    index: int
    nics: list[HostNic] = field(default_factory=list)

    def interface(self, nic_index: int) -> str:
        return f"{self.name}-eth{nic_index}"

    def nic_on_plane(self, plane: int) -> HostNic | None:
        return next((nic for nic in self.nics if nic.plane == plane), None)


@dataclass(frozen=True)
class Link:
    a: str
    a_port: int
    b: str
    b_port: int
    params: LinkParams = LinkParams()


@dataclass
class Fabric:
    """A whole fabric. `spec` is the topology spec string it was built from."""

    spec: str
    planes: int = 1
    intf_tag: str = "eth"  # see mrclab.fabric.generators.interface_tag
    switches: dict[str, SwitchNode] = field(default_factory=dict)
    hosts: dict[str, HostNode] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)

    def add_switch(
        self, name: str, role: str, plane: int, pod: int | None, grpc_base: int, thrift_base: int
    ) -> SwitchNode:
        if name in self.switches or name in self.hosts:
            raise ValueError(f"duplicate node name {name!r}")
        index = len(self.switches)
        switch = SwitchNode(
            name=name,
            role=role,
            plane=plane,
            pod=pod,
            device_id=index + 1,
            grpc_port=grpc_base + index,
            thrift_port=thrift_base + index,
            intf_tag=self.intf_tag,
        )
        self.switches[name] = switch
        return switch

    def add_host(self, name: str, group: int, index: int) -> HostNode:
        if name in self.switches or name in self.hosts:
            raise ValueError(f"duplicate node name {name!r}")
        host = HostNode(name=name, group=group, index=index)
        self.hosts[name] = host
        return host

    def connect_switches(self, a: str, b: str, params: LinkParams) -> Link:
        sa, sb = self.switches[a], self.switches[b]
        pa, pb = len(sa.ports) + 1, len(sb.ports) + 1
        sa.ports[pa] = PortPeer(b, pb)
        sb.ports[pb] = PortPeer(a, pa)
        link = Link(a, pa, b, pb, params)
        self.links.append(link)
        return link

    def attach_host(self, host: str, switch: str, plane: int, params: LinkParams) -> Link:
        h, s = self.hosts[host], self.switches[switch]
        nic_index = len(h.nics)
        port = len(s.ports) + 1
        prefix_len = 8 if self.planes == 1 else 16
        if not (0 <= h.group <= 255 and 1 <= h.index <= 254 and 0 <= plane <= 255):
            raise ValueError(
                f"host {host}: group {h.group} / index {h.index} do not fit the 10.P.G.H scheme"
            )
        nic = HostNic(
            index=nic_index,
            plane=plane,
            ip=f"10.{plane}.{h.group}.{h.index}",
            prefix_len=prefix_len,
            mac=f"02:00:0a:{plane:02x}:{h.group:02x}:{h.index:02x}",
            switch=switch,
            switch_port=port,
        )
        h.nics.append(nic)
        s.ports[port] = PortPeer(host, nic_index)
        link = Link(switch, port, host, nic_index, params)
        self.links.append(link)
        return link

    def fabric_links(self) -> list[Link]:
        """Switch-to-switch links (the ones the controller probes)."""
        return [lk for lk in self.links if lk.a in self.switches and lk.b in self.switches]

    def max_switch_hops(self) -> int:
        """Switches on the longest shortest path between two hosts' switches (5 on a
        fat-tree: edge, aggregation, core, aggregation, edge): the most egress queues a
        packet can cross on a path the controller uses."""
        # imported here: Mininet-side readers of the model (lab, topologies) never need
        # networkx and start faster without it
        import networkx as nx

        graph = nx.Graph()
        graph.add_nodes_from(self.switches)
        graph.add_edges_from((link.a, link.b) for link in self.fabric_links())
        attached = {nic.switch for host in self.hosts.values() for nic in host.nics}
        return max((1 + hops for start in attached
                    for node, hops in nx.single_source_shortest_path_length(graph, start).items()
                    if node in attached), default=0)

    def find_link(self, a: str, b: str) -> Link:
        for link in self.links:
            if {link.a, link.b} == {a, b}:
                return link
        raise KeyError(f"no link between {a} and {b}")
