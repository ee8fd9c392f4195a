"""Translate between SwitchState ops and P4Runtime messages for mrc.p4 (pure, no I/O)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from mrclab.controller.switch_state import SwitchState
from mrclab.controller.write_plan import Kind, Op, OpType

T_DOWNLINK = "MrcIngress.downlink"
T_UPLINK = "MrcIngress.uplink"
T_SPRAY = "MrcIngress.spray_config"
T_SOURCE_LABEL = "MrcIngress.source_label"
T_THRESHOLDS = "MrcIngress.port_thresholds"
AP_UPLINK = "MrcIngress.uplink_selector"
A_FORWARD = "MrcIngress.forward"
A_SET_SPRAY = "MrcIngress.set_spray_mode"
A_SET_THRESHOLDS = "MrcIngress.set_thresholds"
PORT_COUNTERS = ("MrcEgress.tx_packets", "MrcEgress.trimmed", "MrcEgress.ecn_marked")
DROP_COUNTER = "MrcIngress.drops"


def encode_uint(value: int) -> bytes:
    """P4Runtime canonical bytestring: shortest big-endian form, at least one byte."""
    if value < 0:
        raise ValueError(f"negative value {value}")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def decode_uint(data: bytes) -> int:
    return int.from_bytes(data, "big")


def load_p4info(path: str | Path) -> p4info_pb2.P4Info:
    p4info = p4info_pb2.P4Info()
    text_format.Parse(Path(path).read_text(), p4info)
    return p4info


def pipeline_cookie(p4info: p4info_pb2.P4Info, device_config: bytes) -> int:
    digest = hashlib.sha256(p4info.SerializeToString(deterministic=True) + device_config)
    return int.from_bytes(digest.digest()[:8], "big")


@dataclass
class P4Ids:
    """The ids of the objects the controller touches, looked up by name in the P4Info."""

    p4info: p4info_pb2.P4Info

    def __post_init__(self) -> None:
        info = self.p4info
        self._tables = {t.preamble.name: t for t in info.tables}
        self._tables |= {t.preamble.alias: t for t in info.tables}
        self._actions = {a.preamble.name: a for a in info.actions}
        self._actions |= {a.preamble.alias: a for a in info.actions}
        self._profiles = {p.preamble.name: p for p in info.action_profiles}
        self._counters = {c.preamble.name: c for c in info.counters}
        self._packet_md = {m.preamble.name: m for m in info.controller_packet_metadata}

    def table(self, name: str) -> int:
        try:
            return self._tables[name].preamble.id
        except KeyError:
            raise KeyError(f"P4Info has no table {name}") from None

    def key_field(self, table: str) -> int:
        """Id of the table's single non-selector match field."""
        fields = self._tables[table].match_fields
        if not fields:
            raise KeyError(f"table {table} has no match field in the P4Info")
        return fields[0].id

    def action(self, name: str) -> int:
        try:
            return self._actions[name].preamble.id
        except KeyError:
            raise KeyError(f"P4Info has no action {name}") from None

    def param(self, action: str, index: int) -> int:
        return self._actions[action].params[index].id

    def profile(self, name: str) -> int:
        try:
            return self._profiles[name].preamble.id
        except KeyError:
            raise KeyError(f"P4Info has no action profile {name}") from None

    def counter(self, name: str) -> int:
        try:
            return self._counters[name].preamble.id
        except KeyError:
            raise KeyError(f"P4Info has no counter {name}") from None

    def packet_metadata(self, direction: str) -> dict[str, int]:
        """{field name: id} of the packet_in / packet_out controller header."""
        md = self._packet_md.get(direction)
        if md is None:
            raise KeyError(f"P4Info has no controller header {direction}")
        return {m.name: m.id for m in md.metadata}


class Codec:
    """Builds P4Runtime entities for ops and parses read-back entities into a SwitchState."""

    def __init__(self, ids: P4Ids) -> None:
        self.ids = ids
        self.t_downlink = ids.table(T_DOWNLINK)
        self.t_uplink = ids.table(T_UPLINK)
        self.t_spray = ids.table(T_SPRAY)
        self.t_label = ids.table(T_SOURCE_LABEL)
        self.t_thresholds = ids.table(T_THRESHOLDS)
        self.ap_uplink = ids.profile(AP_UPLINK)
        self.a_forward = ids.action(A_FORWARD)
        self.a_spray = ids.action(A_SET_SPRAY)
        self.a_thresholds = ids.action(A_SET_THRESHOLDS)
        self._packet_out_ids = ids.packet_metadata("packet_out")
        self._packet_in_names = {v: k for k, v in ids.packet_metadata("packet_in").items()}
        # mrc.p4 replicates a PacketOut to the switch's probe group; a program without the
        # field (an older copy of it) gets one PacketOut per probed port
        self.probes_to_group = "probe_group" in self._packet_out_ids

    # --- packet I/O -----------------------------------------------------------------------
    def packet_out_metadata(self, port: int | None) -> dict[int, bytes]:
        """PacketOut metadata (id -> bytes) sending a frame out of `port`, or with None to
        the ports of the switch's probe group (only when `probes_to_group`)."""
        if port is None and not self.probes_to_group:
            raise ValueError("the program's packet_out header has no probe_group field")
        values = {"egress_port": port or 0, "probe_group": int(port is None)}
        return {mid: encode_uint(values.get(name, 0))
                for name, mid in self._packet_out_ids.items()}

    def packet_in_port(self, metadata: dict[int, bytes]) -> int | None:
        """The ingress port a PacketIn's metadata (id -> bytes) names."""
        return next((int.from_bytes(v, "big") for mid, v in metadata.items()
                     if self._packet_in_names.get(mid) == "ingress_port"), None)

    # --- building -------------------------------------------------------------------------
    def _action(self, action_id: int, action_name: str, *args: int) -> p4runtime_pb2.Action:
        action = p4runtime_pb2.Action(action_id=action_id)
        for i, arg in enumerate(args):
            action.params.add(param_id=self.ids.param(action_name, i), value=encode_uint(arg))
        return action

    def _forward(self, port: int) -> p4runtime_pb2.Action:
        return self._action(self.a_forward, A_FORWARD, port)

    def _table_entry(self, kind: Kind, key: object) -> p4runtime_pb2.TableEntry:
        if kind in (Kind.DOWNLINK, Kind.UPLINK):
            table = T_DOWNLINK if kind is Kind.DOWNLINK else T_UPLINK
            ip, plen = key  # type: ignore[misc]
            entry = p4runtime_pb2.TableEntry(table_id=self.ids.table(table))
            fm = entry.match.add(field_id=self.ids.key_field(table))
            fm.lpm.value = encode_uint(ip)
            fm.lpm.prefix_len = plen
            return entry
        table = T_SOURCE_LABEL if kind is Kind.SOURCE_LABEL else T_THRESHOLDS
        entry = p4runtime_pb2.TableEntry(table_id=self.ids.table(table))
        fm = entry.match.add(field_id=self.ids.key_field(table))
        fm.exact.value = encode_uint(key)  # type: ignore[arg-type]
        return entry

    def entity(self, op: Op) -> p4runtime_pb2.Entity:
        entity = p4runtime_pb2.Entity()
        if op.kind is Kind.MEMBER:
            member = entity.action_profile_member
            member.action_profile_id = self.ap_uplink
            member.member_id = op.key  # type: ignore[assignment]
            if op.type is not OpType.DELETE:
                member.action.CopyFrom(self._forward(op.value))  # type: ignore[arg-type]
        elif op.kind is Kind.GROUP:
            group = entity.action_profile_group
            group.action_profile_id = self.ap_uplink
            group.group_id = op.key  # type: ignore[assignment]
            if op.type is not OpType.DELETE:
                for member_id, weight in sorted(op.value):  # type: ignore[arg-type]
                    # member id == its port, so the member watches its own port
                    group.members.add(member_id=member_id, weight=weight,
                                      watch_port=encode_uint(member_id))
        elif op.kind is Kind.MULTICAST:
            group = entity.packet_replication_engine_entry.multicast_group_entry
            group.multicast_group_id = op.key  # type: ignore[assignment]
            if op.type is not OpType.DELETE:
                for port in sorted(op.value):  # type: ignore[arg-type]
                    group.replicas.add(port=encode_uint(port), instance=0)
        elif op.kind is Kind.SPRAY:
            entry = entity.table_entry
            entry.table_id = self.t_spray
            entry.is_default_action = True
            mode, salt = op.value  # type: ignore[misc]
            entry.action.action.CopyFrom(self._action(self.a_spray, A_SET_SPRAY, mode, salt))
        else:
            entity.table_entry.CopyFrom(self._table_entry(op.kind, op.key))
            if op.type is not OpType.DELETE:
                action = entity.table_entry.action
                if op.kind is Kind.UPLINK:
                    action.action_profile_group_id = op.value  # type: ignore[assignment]
                elif op.kind is Kind.THRESHOLDS:
                    trim, ecn = op.value  # type: ignore[misc]
                    action.action.CopyFrom(
                        self._action(self.a_thresholds, A_SET_THRESHOLDS, trim, ecn))
                else:
                    action.action.CopyFrom(self._forward(op.value))  # type: ignore[arg-type]
        return entity

    def update(self, op: Op) -> p4runtime_pb2.Update:
        return p4runtime_pb2.Update(type=p4runtime_pb2.Update.Type.Value(op.type.value),
                                    entity=self.entity(op))

    # --- reading back ---------------------------------------------------------------------
    def read_request_entities(self) -> list[p4runtime_pb2.Entity]:
        """Wildcard reads covering everything the controller owns."""
        entities = []
        for table_id in (self.t_downlink, self.t_uplink, self.t_label, self.t_thresholds):
            entities.append(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(
                table_id=table_id)))
        entities.append(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(
            table_id=self.t_spray, is_default_action=True)))
        entities.append(p4runtime_pb2.Entity(action_profile_member=(
            p4runtime_pb2.ActionProfileMember(action_profile_id=self.ap_uplink))))
        entities.append(p4runtime_pb2.Entity(action_profile_group=(
            p4runtime_pb2.ActionProfileGroup(action_profile_id=self.ap_uplink))))
        entities.append(p4runtime_pb2.Entity(packet_replication_engine_entry=(
            p4runtime_pb2.PacketReplicationEngineEntry(
                multicast_group_entry=p4runtime_pb2.MulticastGroupEntry()))))  # id 0: all
        return entities

    def parse_state(self, entities: list[p4runtime_pb2.Entity]) -> SwitchState:
        state = SwitchState()
        for entity in entities:
            which = entity.WhichOneof("entity")
            if which == "action_profile_member":
                m = entity.action_profile_member
                state.members[m.member_id] = decode_uint(m.action.params[0].value)
            elif which == "action_profile_group":
                g = entity.action_profile_group
                state.groups[g.group_id] = frozenset((m.member_id, m.weight) for m in g.members)
            elif which == "table_entry":
                self._parse_table_entry(entity.table_entry, state)
            elif which == "packet_replication_engine_entry":
                pre = entity.packet_replication_engine_entry
                if pre.WhichOneof("type") == "multicast_group_entry":
                    g = pre.multicast_group_entry
                    # a replica's port in either P4Runtime form
                    state.multicast[g.multicast_group_id] = frozenset(
                        decode_uint(r.port) if r.WhichOneof("port_kind") == "port"
                        else r.egress_port for r in g.replicas)
        return state

    def _parse_table_entry(self, entry: p4runtime_pb2.TableEntry, state: SwitchState) -> None:
        action = entry.action
        if entry.table_id == self.t_spray:
            if entry.is_default_action and action.action.action_id == self.a_spray:
                # by param id: a target need not return params in declaration order
                params = {p.param_id: decode_uint(p.value) for p in action.action.params}
                state.spray_mode = params.get(self.ids.param(A_SET_SPRAY, 0))
                state.spray_salt = params.get(self.ids.param(A_SET_SPRAY, 1))
            return
        if entry.is_default_action or not entry.match:
            return
        fm = entry.match[0]
        if entry.table_id in (self.t_downlink, self.t_uplink):
            key = (decode_uint(fm.lpm.value), fm.lpm.prefix_len)
            if entry.table_id == self.t_uplink:
                state.uplink[key] = action.action_profile_group_id
            elif action.action.action_id == self.a_forward:
                state.downlink[key] = decode_uint(action.action.params[0].value)
            else:
                state.downlink[key] = -1  # an entry we did not write: forces a MODIFY
            return
        key_value = decode_uint(fm.exact.value)
        if entry.table_id == self.t_label:
            state.source_label[key_value] = decode_uint(action.action.params[0].value)
        elif entry.table_id == self.t_thresholds:
            params = action.action.params
            state.thresholds[key_value] = (decode_uint(params[0].value),
                                           decode_uint(params[1].value))
