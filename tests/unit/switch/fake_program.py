"""A small hand-made program (ProgramInfo + matching P4Info) and a toy pipeline.

Stands in for the compiler and the v1model interpreter in no-root server tests: the
device config bytes are just a tag, the pipeline forwards by a packet_out header or
sends everything else to the CPU port with a packet_in header.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

from p4emu.runtime.match import Exact
from p4emu.runtime.model import (
    ActionInfo,
    ActionProfileInfo,
    ActionRef,
    ConstEntry,
    ControllerHeaderInfo,
    CounterInfo,
    CounterUnit,
    DigestInfo,
    HeaderFieldInfo,
    KeyField,
    MatchKind,
    MeterInfo,
    MeterUnit,
    ParamInfo,
    ProgramInfo,
    RegisterInfo,
    TableInfo,
)

DEVICE_ID = 1
DEVICE_CONFIG = b"fake-l3-program"
NO_ACTION = 0x01000001
DROP = 0x01000002
FORWARD = 0x01000003
SET_NHOP = 0x01000004
LPM = 0x02000001
ACL = 0x02000002
ECMP = 0x02000003
CONSTS = 0x02000004
SELECTOR = 0x11000001
PORT_COUNTER = 0x12000001
LPM_COUNTER = 0x13000001
PORT_METER = 0x14000001
QDEPTH = 0x16000001
PACKET_IN = 0x04000001
PACKET_OUT = 0x04000002
LEARN = 0x17000001
CPU_PORT = 255


def make_info() -> ProgramInfo:
    actions = {
        NO_ACTION: ActionInfo(NO_ACTION, "NoAction"),
        DROP: ActionInfo(DROP, "MyIngress.drop"),
        FORWARD: ActionInfo(FORWARD, "MyIngress.ipv4_forward",
                            (ParamInfo(1, "dstAddr", 48), ParamInfo(2, "port", 9))),
        SET_NHOP: ActionInfo(SET_NHOP, "MyIngress.set_nhop", (ParamInfo(1, "port", 9),)),
    }
    tables = {
        LPM: TableInfo(LPM, "MyIngress.ipv4_lpm",
                       (KeyField(1, "hdr.ipv4.dstAddr", MatchKind.LPM, 32),),
                       (ActionRef(FORWARD), ActionRef(DROP), ActionRef(NO_ACTION)),
                       size=1024, default_action_id=DROP,
                       direct_counter="MyIngress.lpm_counter"),
        ACL: TableInfo(ACL, "MyIngress.acl",
                       (KeyField(1, "hdr.ethernet.etherType", MatchKind.TERNARY, 16),
                        KeyField(2, "meta.l4_port", MatchKind.RANGE, 16)),
                       (ActionRef(DROP), ActionRef(NO_ACTION)), size=64,
                       default_action_id=NO_ACTION),
        ECMP: TableInfo(ECMP, "MyIngress.ecmp",
                        (KeyField(1, "meta.group", MatchKind.EXACT, 8),
                         KeyField(2, "hdr.ipv4.srcAddr", MatchKind.SELECTOR, 32)),
                        (ActionRef(SET_NHOP),), size=16,
                        implementation="MyIngress.ecmp_selector"),
        CONSTS: TableInfo(CONSTS, "MyIngress.consts",
                          (KeyField(1, "meta.x", MatchKind.EXACT, 8),),
                          (ActionRef(DROP), ActionRef(NO_ACTION)),
                          default_action_id=NO_ACTION, const_default_action=True,
                          is_const=True,
                          const_entries=(ConstEntry((Exact(7),), DROP, (), 1),)),
    }
    return ProgramInfo(
        actions=actions,
        tables=tables,
        action_profiles={SELECTOR: ActionProfileInfo(SELECTOR, "MyIngress.ecmp_selector",
                                                     (ECMP,), 64, with_selector=True,
                                                     selector_algorithm="crc16",
                                                     max_group_size=8)},
        counters={PORT_COUNTER: CounterInfo(PORT_COUNTER, "MyIngress.port_counter", 8,
                                            CounterUnit.BOTH),
                  LPM_COUNTER: CounterInfo(LPM_COUNTER, "MyIngress.lpm_counter", 1024,
                                           CounterUnit.BOTH, direct_table_id=LPM)},
        meters={PORT_METER: MeterInfo(PORT_METER, "MyIngress.port_meter", 4,
                                      MeterUnit.PACKETS)},
        registers={QDEPTH: RegisterInfo(QDEPTH, "MyEgress.qdepth", 8, 19)},
        controller_headers={
            PACKET_IN: ControllerHeaderInfo(PACKET_IN, "packet_in",
                                            (HeaderFieldInfo(1, "ingress_port", 9),
                                             HeaderFieldInfo(2, "_pad", 7))),
            PACKET_OUT: ControllerHeaderInfo(PACKET_OUT, "packet_out",
                                             (HeaderFieldInfo(1, "egress_port", 9),
                                              HeaderFieldInfo(2, "_pad", 7))),
        },
        digests={LEARN: DigestInfo(LEARN, "learn_t", (HeaderFieldInfo(1, "mac", 48),
                                                      HeaderFieldInfo(2, "port", 9)))},
    )


def _preamble(pb, obj_id: int, name: str) -> None:
    pb.preamble.id = obj_id
    pb.preamble.name = name
    pb.preamble.alias = name.split(".")[-1]


def make_p4info(info: ProgramInfo) -> p4info_pb2.P4Info:
    p4info = p4info_pb2.P4Info()
    p4info.pkg_info.arch = "v1model"
    kinds = {MatchKind.EXACT: 2, MatchKind.LPM: 3, MatchKind.TERNARY: 4, MatchKind.RANGE: 5,
             MatchKind.OPTIONAL: 6}
    for t in info.tables.values():
        pb = p4info.tables.add()
        _preamble(pb, t.id, t.name)
        for k in t.keys:
            if k.match_kind == MatchKind.SELECTOR:
                continue
            pb.match_fields.add(id=k.id, name=k.name, bitwidth=k.bitwidth,
                                match_type=kinds[k.match_kind])
        for ref in t.actions:
            pb.action_refs.add(id=ref.id)
        pb.size = t.size
        pb.is_const_table = t.is_const
        if t.implementation:
            pb.implementation_id = SELECTOR
        if t.direct_counter:
            pb.direct_resource_ids.append(LPM_COUNTER)
    for a in info.actions.values():
        pb = p4info.actions.add()
        _preamble(pb, a.id, a.name)
        for p in a.params:
            pb.params.add(id=p.id, name=p.name, bitwidth=p.bitwidth)
    for ap in info.action_profiles.values():
        pb = p4info.action_profiles.add()
        _preamble(pb, ap.id, ap.name)
        pb.table_ids.extend(ap.table_ids)
        pb.with_selector = ap.with_selector
        pb.size = ap.size
        pb.max_group_size = ap.max_group_size
    for c in info.counters.values():
        pb = p4info.direct_counters.add() if c.direct_table_id else p4info.counters.add()
        _preamble(pb, c.id, c.name)
        pb.spec.unit = 3
        if c.direct_table_id:
            pb.direct_table_id = c.direct_table_id
        else:
            pb.size = c.size
    for m in info.meters.values():
        pb = p4info.meters.add()
        _preamble(pb, m.id, m.name)
        pb.spec.unit = 2
        pb.size = m.size
    for r in info.registers.values():
        pb = p4info.registers.add()
        _preamble(pb, r.id, r.name)
        pb.type_spec.bitstring.bit.bitwidth = r.bitwidth
        pb.size = r.size
    for h in info.controller_headers.values():
        pb = p4info.controller_packet_metadata.add()
        _preamble(pb, h.id, h.name)
        for f in h.fields:
            pb.metadata.add(id=f.id, name=f.name, bitwidth=f.bitwidth)
    for d in info.digests.values():
        pb = p4info.digests.add()
        _preamble(pb, d.id, d.name)
    return p4info


@dataclass
class FakeJob:
    port: int
    priority: int
    data: bytes


class FakePipeline:
    """packet_out header from the CPU port -> that egress port; anything else -> CPU."""

    def __init__(self, state, cpu_port: int) -> None:
        self.state = state
        self.cpu_port = cpu_port
        self.egress_seen: list[dict] = []
        self.received: list[tuple[int, bytes]] = []

    def ingress(self, port: int, data: bytes, now_us: int) -> list[FakeJob]:
        self.received.append((port, data))
        if data.startswith(b"CRASH"):
            raise RuntimeError("toy pipeline crash")
        if port == self.cpu_port:
            egress = int.from_bytes(data[:2], "big") >> 7
            return [FakeJob(egress, 0, data[2:])]
        header = ((port << 7).to_bytes(2, "big"))
        self.state.counters[PORT_COUNTER].count(port % 8, len(data))
        return [FakeJob(self.cpu_port, 0, header + data)]

    def egress(self, job: FakeJob, *, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth,
               now_us) -> list[tuple[int, bytes]]:
        self.egress_seen.append({"enq_qdepth": enq_qdepth, "deq_qdepth": deq_qdepth,
                                 "deq_timedelta": deq_timedelta})
        return [(job.port, job.data)]


def fake_loader(cpu_port: int = CPU_PORT):
    def load(device_config: bytes):
        if device_config != DEVICE_CONFIG:
            raise ValueError("not the fake program")
        return make_info(), lambda state: FakePipeline(state, cpu_port)

    return load


def push_pipeline(stub, p4info, election_id: int = 0, cookie: int = 7) -> None:
    req = p4runtime_pb2.SetForwardingPipelineConfigRequest(
        device_id=DEVICE_ID,
        action=p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT)
    req.election_id.low = election_id
    req.config.p4info.CopyFrom(p4info)
    req.config.p4_device_config = DEVICE_CONFIG
    req.config.cookie.cookie = cookie
    stub.SetForwardingPipelineConfig(req)
