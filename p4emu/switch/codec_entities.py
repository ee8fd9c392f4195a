"""Protobuf <-> runtime values for the entities other than table matches/actions."""

from __future__ import annotations

from p4.v1 import p4data_pb2, p4runtime_pb2

from p4emu.runtime.action_profiles import GroupMember
from p4emu.runtime.counters import CounterData
from p4emu.runtime.digests import DigestConfig
from p4emu.runtime.meters import MeterConfig
from p4emu.runtime.pre import Replica
from p4emu.switch.bytestrings import decode, encode
from p4emu.switch.p4rt_errors import invalid

PORT_BITS = 32  # P4Runtime port bytestrings; v1model ports are bit<9> inside


def decode_port(data: bytes, what: str) -> int:
    return decode(data, PORT_BITS, what)


def decode_counter_data(pb: p4runtime_pb2.CounterData) -> CounterData:
    if pb.packet_count < 0 or pb.byte_count < 0:
        raise invalid("counter data must be non-negative")
    return CounterData(pb.packet_count, pb.byte_count)


def encode_counter_data(data: CounterData) -> p4runtime_pb2.CounterData:
    return p4runtime_pb2.CounterData(packet_count=data.packets, byte_count=data.bytes)


def decode_meter_config(pb: p4runtime_pb2.MeterConfig) -> MeterConfig:
    config = MeterConfig(pb.cir, pb.cburst, pb.pir, pb.pburst)
    if min(config.cir, config.cburst, config.pir, config.pburst) < 0:
        raise invalid("meter rates and bursts must be non-negative")
    if config.pir < config.cir:
        raise invalid(f"meter peak rate {config.pir} is below the committed rate {config.cir}")
    return config


def encode_meter_config(config: MeterConfig) -> p4runtime_pb2.MeterConfig:
    return p4runtime_pb2.MeterConfig(cir=config.cir, cburst=config.cburst, pir=config.pir,
                                     pburst=config.pburst)


def decode_group_members(pb: p4runtime_pb2.ActionProfileGroup) -> list[GroupMember]:
    members = []
    for m in pb.members:
        kind = m.WhichOneof("watch_kind")
        watch: int | None = None
        if kind == "watch_port":
            watch = decode_port(m.watch_port, f"group {pb.group_id} member watch_port")
        elif kind == "watch":
            watch = m.watch
        # PI refuses weight 0 (the proto default) too: the client must say how many slots
        if m.weight <= 0:
            raise invalid(f"group {pb.group_id}: member {m.member_id} weight must be >= 1")
        members.append(GroupMember(m.member_id, m.weight, watch))
    return members


def watch_forms(pb: p4runtime_pb2.ActionProfileGroup) -> dict[int, str]:
    """member id -> "watch" or "watch_port": how the client gave each watch port."""
    return {m.member_id: m.WhichOneof("watch_kind") for m in pb.members
            if m.WhichOneof("watch_kind")}


def encode_group_member(member: GroupMember, form: str | None = None,
                        ) -> p4runtime_pb2.ActionProfileGroup.Member:
    """A group member; the watch port in the form it was written (bytes by default)."""
    pb = p4runtime_pb2.ActionProfileGroup.Member(member_id=member.member_id,
                                                 weight=member.weight)
    if member.watch_port is not None:
        if form == "watch":
            pb.watch = member.watch_port
        else:
            pb.watch_port = encode(member.watch_port)
    return pb


def decode_replicas(replicas, what: str) -> list[Replica]:
    out: list[Replica] = []
    for r in replicas:
        if r.WhichOneof("port_kind") == "port":
            port = decode_port(r.port, f"{what} replica port")
        else:
            port = r.egress_port
        out.append((r.instance, port))
    return out


def replica_form(replicas) -> str:
    """"egress_port" (P4Runtime < 1.4 clients) or "port" (bytes, 1.4)."""
    kinds = {r.WhichOneof("port_kind") for r in replicas}
    return "egress_port" if kinds == {"egress_port"} else "port"


def encode_replica(rid: int, port: int, form: str = "port") -> p4runtime_pb2.Replica:
    """A replica, its port in the form the client wrote it (read-write symmetry)."""
    if form == "egress_port":
        return p4runtime_pb2.Replica(egress_port=port, instance=rid)
    return p4runtime_pb2.Replica(port=encode(port), instance=rid)


def decode_digest_config(pb: p4runtime_pb2.DigestEntry.Config) -> DigestConfig:
    if pb.max_timeout_ns < 0 or pb.max_list_size < 0 or pb.ack_timeout_ns < 0:
        raise invalid("digest config values must be non-negative")
    return DigestConfig(pb.max_timeout_ns, pb.max_list_size, pb.ack_timeout_ns)


def encode_digest_config(config: DigestConfig) -> p4runtime_pb2.DigestEntry.Config:
    return p4runtime_pb2.DigestEntry.Config(max_timeout_ns=config.max_timeout_ns,
                                            max_list_size=config.max_list_size,
                                            ack_timeout_ns=config.ack_timeout_ns)


def decode_register_data(pb: p4data_pb2.P4Data, bitwidth: int, what: str) -> int:
    if pb.WhichOneof("data") != "bitstring":
        raise invalid(f"{what}: only bitstring register data is supported")
    return decode(pb.bitstring, bitwidth, what)


def encode_register_data(value: int) -> p4data_pb2.P4Data:
    return p4data_pb2.P4Data(bitstring=encode(value))
