"""The forwarding state of one switch, as plain data, and what the controller wants in it.

Both the desired state (computed from the topology) and the state read back from a switch
are `SwitchState`s, so reconciliation is a pure diff (mrclab/controller/write_plan.py).

Ids are derived from content so they are stable across recomputations and restarts:
  member id = its port; group id = bit mask of its ports (ports 1..31).

Hash decorrelation: every switch hashes the same header fields with the same function, so
without help a flow that took member i at one tier would take member i at the next as well
and only a fraction of the paths would ever be used (ECMP polarization). Each switch gets
its own hash salt (its device id) in the spray_config default entry; mrc.p4 mixes it into
the path hash non-linearly, so switches split the same flows independently and group
members all keep weight 1.
"""

from __future__ import annotations

import functools
import ipaddress
from dataclasses import dataclass, field

from mrclab.fabric.model import SwitchNode
from mrclab.fabric.spray import SPRAY_MODES

MAX_GROUP_PORT = 31
PROBE_GROUP = 1  # mrc.p4's multicast group of the ports a switch probes (headers.p4)
MAX_SALT = (1 << 32) - 1  # set_spray_mode's salt is bit<32>
THRESHOLD_NEVER = (1 << 19) - 1  # 19-bit threshold no queue reaches

Prefix = tuple[int, int]  # (IPv4 address as int, prefix length)


def group_id_for(ports: frozenset[int]) -> int:
    """Stable group id: the bit mask of the member ports."""
    mask = 0
    for port in ports:
        if not 1 <= port <= MAX_GROUP_PORT:
            raise ValueError(f"port {port} cannot be a group member (1..{MAX_GROUP_PORT})")
        mask |= 1 << port
    return mask


def ports_of_group(group_id: int) -> frozenset[int]:
    return frozenset(p for p in range(1, MAX_GROUP_PORT + 1) if group_id >> p & 1)


# cached: the controller converts every destination once per switch (330 000 times per
# recomputation on a k=16 fat-tree), and ipaddress takes about 2 us a parse
@functools.cache
def ip_to_int(ip: str) -> int:
    """An IPv4 address as its 32-bit number; ValueError when it is malformed."""
    return int(ipaddress.IPv4Address(ip))


@dataclass
class SwitchState:
    members: dict[int, int] = field(default_factory=dict)  # member id -> port
    # group id -> {(member id, weight)}
    groups: dict[int, frozenset[tuple[int, int]]] = field(default_factory=dict)
    downlink: dict[Prefix, int] = field(default_factory=dict)  # prefix -> port
    uplink: dict[Prefix, int] = field(default_factory=dict)  # prefix -> group id
    source_label: dict[int, int] = field(default_factory=dict)  # label -> port
    thresholds: dict[int, tuple[int, int]] = field(default_factory=dict)  # port -> (trim, ecn)
    spray_mode: int | None = None  # None: not known (forces a write)
    spray_salt: int | None = None  # written with spray_mode, in the same default entry
    multicast: dict[int, frozenset[int]] = field(default_factory=dict)  # group id -> ports

    def entry_count(self) -> int:
        return (len(self.members) + len(self.groups) + len(self.downlink) + len(self.uplink)
                + len(self.source_label) + len(self.thresholds) + len(self.multicast) + 1)


@dataclass(frozen=True)
class ForwardingPolicy:
    """Controller knobs applied to every switch."""

    spray_mode: int = SPRAY_MODES["ecmp"]
    trim_threshold: int = 32  # packets; 0 = never trim
    ecn_threshold: int = 16  # packets; 0 = never mark

    def thresholds(self) -> tuple[int, int] | None:
        """(trim, ecn) for port_thresholds entries; None = install no entries."""
        if self.trim_threshold == 0 and self.ecn_threshold == 0:
            return None
        trim = self.trim_threshold or THRESHOLD_NEVER
        ecn = self.ecn_threshold or THRESHOLD_NEVER
        return trim, ecn


def hash_salt(device_id: int) -> int:
    """The switch's path-hash salt. The device id is unique in a fabric and stable across
    restarts of switch and controller, so reconciliation finds the same value again; the
    data plane scrambles it, so small consecutive ids decorrelate as well as random ones."""
    if not 0 <= device_id <= MAX_SALT:
        raise ValueError(f"device id {device_id} does not fit the 32-bit hash salt")
    return device_id


def build_switch_state(
    ports: list[int], next_hops: dict[str, frozenset[int]], policy: ForwardingPolicy,
    salt: int = 0, probe_ports: frozenset[int] = frozenset(),
) -> SwitchState:
    """Desired state from one switch's per-destination next-hop port sets.

    One next hop → `downlink` /32 entry; several → `uplink` /32 entry to the group of
    those ports, every member weight 1. The source-route label table maps label L → port L
    for every port. `salt` is the switch's hash salt (`hash_salt`). `probe_ports`, when
    any, are the multicast group PROBE_GROUP that replicates one probe to each of them.
    """
    state = SwitchState(spray_mode=policy.spray_mode, spray_salt=salt)
    if probe_ports:
        state.multicast[PROBE_GROUP] = probe_ports
    for ip, hops in next_hops.items():
        prefix = (ip_to_int(ip), 32)
        if len(hops) == 1:
            state.downlink[prefix] = next(iter(hops))
        elif len(hops) > 1:
            gid = group_id_for(hops)
            state.groups[gid] = frozenset((port, 1) for port in hops)
            for port in hops:
                state.members[port] = port
            state.uplink[prefix] = gid
    for port in ports:
        if port <= 255:
            state.source_label[port] = port
    thresholds = policy.thresholds()
    if thresholds is not None:
        for port in ports:
            state.thresholds[port] = thresholds
    return state


def desired_state(switch: SwitchNode, next_hops: dict[str, frozenset[int]],
                  policy: ForwardingPolicy, probe_ports: frozenset[int] = frozenset()
                  ) -> SwitchState:
    """What `switch` should hold: its routes from `next_hops`, the policy, its salt, and
    the probe group of `probe_ports` (the ports it probes; none: no group)."""
    return build_switch_state(sorted(switch.ports), next_hops, policy,
                              hash_salt(switch.device_id), probe_ports)
