"""Packet replication engine: multicast groups and clone sessions.

A multicast group is a list of nodes; a node is a replication id (rid) and a set of ports.
Replicas come out node by node, ports ascending within a node (docs/v1model.md §7). STF's
`mc_node_create` / `mc_node_associate` map to `create_node` / `associate`; P4Runtime's
MulticastGroupEntry maps to `insert_group` / `modify_group` / `delete_group`, which group
the (rid, port) replicas by rid, first appearance first.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from p4emu.runtime.errors import EntryExists, EntryNotFound, InvalidEntry

Replica = tuple[int, int]  # (rid, egress port)


@dataclass
class Node:
    rid: int
    ports: set[int]


@dataclass(frozen=True)
class CloneSession:
    session_id: int
    egress_port: int | None = None  # the plain mirroring_add form
    replicas: tuple[Replica, ...] = ()  # the P4Runtime form
    class_of_service: int = 0
    packet_length_bytes: int = 0
    mcast_group: int | None = None  # mirroring_add_mc: replicate via a multicast group

    def targets(self) -> list[Replica]:
        """The session's own (rid, port) copies: its egress port, then its replicas
        (copies through `mcast_group` are expanded by `Pre.clone_targets`)."""
        out: list[Replica] = [] if self.egress_port is None else [(0, self.egress_port)]
        out.extend(self.replicas)
        return out


def _group_by_rid(replicas: Iterable[Replica]) -> list[Node]:
    nodes: dict[int, Node] = {}
    seen: set[Replica] = set()
    for rid, port in replicas:
        if (rid, port) in seen:
            raise InvalidEntry(f"duplicate replica (rid {rid}, port {port})")
        seen.add((rid, port))
        nodes.setdefault(rid, Node(rid, set())).ports.add(port)
    return list(nodes.values())


class Pre:
    """Multicast groups and clone sessions of one device."""

    def __init__(self) -> None:
        self.nodes: dict[int, Node] = {}  # node handle -> node
        self.groups: dict[int, list[int]] = {}  # group id -> node handles in order
        self.clone_sessions: dict[int, CloneSession] = {}
        self._next_handle = 0

    # --- STF / runtime-CLI style
    def create_group(self, group_id: int) -> None:
        if group_id in self.groups:
            raise EntryExists(f"multicast group {group_id} exists")
        self.groups[group_id] = []

    def create_node(self, rid: int, ports: Iterable[int]) -> int:
        """A new node; returns its handle (0, 1, 2... in creation order)."""
        handle = self._next_handle
        self._next_handle += 1
        self.nodes[handle] = Node(rid, set(ports))
        return handle

    def update_node(self, handle: int, ports: Iterable[int]) -> None:
        if handle not in self.nodes:
            raise EntryNotFound(f"no multicast node {handle}")
        self.nodes[handle].ports = set(ports)

    def associate(self, group_id: int, handle: int) -> None:
        if group_id not in self.groups:
            raise EntryNotFound(f"no multicast group {group_id}")
        if handle not in self.nodes:
            raise EntryNotFound(f"no multicast node {handle}")
        if handle in self.groups[group_id]:
            raise EntryExists(f"node {handle} already in group {group_id}")
        self.groups[group_id].append(handle)

    def dissociate(self, group_id: int, handle: int) -> None:
        try:
            self.groups[group_id].remove(handle)
        except (KeyError, ValueError):
            raise EntryNotFound(f"node {handle} is not in group {group_id}") from None

    # --- P4Runtime style
    def insert_group(self, group_id: int, replicas: Iterable[Replica]) -> None:
        if not 1 <= group_id <= 32767:
            raise InvalidEntry(f"multicast group id {group_id} not in 1..32767")
        if group_id in self.groups:
            raise EntryExists(f"multicast group {group_id} exists")
        nodes = _group_by_rid(replicas)
        self.groups[group_id] = [self.create_node(n.rid, n.ports) for n in nodes]

    def modify_group(self, group_id: int, replicas: Iterable[Replica]) -> None:
        if group_id not in self.groups:
            raise EntryNotFound(f"no multicast group {group_id}")
        nodes = _group_by_rid(replicas)
        for handle in self.groups[group_id]:
            self.nodes.pop(handle, None)
        self.groups[group_id] = [self.create_node(n.rid, n.ports) for n in nodes]

    def delete_group(self, group_id: int) -> None:
        handles = self.groups.pop(group_id, None)
        if handles is None:
            raise EntryNotFound(f"no multicast group {group_id}")
        for handle in handles:
            self.nodes.pop(handle, None)

    def group_replicas(self, group_id: int) -> list[Replica]:
        """Control-plane view: (rid, port) replicas in replication order."""
        return self.replicas(group_id)

    # --- clone sessions
    def set_clone_session(self, session: CloneSession) -> None:
        """Create or replace a session (STF's mirroring_add replaces)."""
        self.clone_sessions[session.session_id] = session

    def insert_clone_session(self, session: CloneSession) -> None:
        if not 1 <= session.session_id <= 32767:
            raise InvalidEntry(f"clone session id {session.session_id} not in 1..32767")
        if session.session_id in self.clone_sessions:
            raise EntryExists(f"clone session {session.session_id} exists")
        self.clone_sessions[session.session_id] = session

    def modify_clone_session(self, session: CloneSession) -> None:
        if session.session_id not in self.clone_sessions:
            raise EntryNotFound(f"no clone session {session.session_id}")
        self.clone_sessions[session.session_id] = session

    def delete_clone_session(self, session_id: int) -> None:
        if self.clone_sessions.pop(session_id, None) is None:
            raise EntryNotFound(f"no clone session {session_id}")

    # --- data plane
    def replicas(self, group_id: int) -> list[Replica]:
        """(rid, port) of each copy for multicast group `group_id`; unknown group: none."""
        out: list[Replica] = []
        for handle in self.groups.get(group_id, ()):
            node = self.nodes[handle]
            out.extend((node.rid, port) for port in sorted(node.ports))
        return out

    def clone_targets(self, session_id: int) -> list[Replica]:
        """Copies made by clone session `session_id` (BMv2: id & 0x7FFF); unknown: none."""
        session = self.clone_sessions.get(session_id & 0x7FFF)
        if session is None:
            return []
        out = session.targets()
        if session.mcast_group is not None:
            out.extend(self.replicas(session.mcast_group))
        return out

    def reset(self) -> None:
        """Forget every group, node and clone session."""
        self.nodes.clear()
        self.groups.clear()
        self.clone_sessions.clear()
        self._next_handle = 0
