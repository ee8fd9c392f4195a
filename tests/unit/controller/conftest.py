"""A P4Info with mrc.p4's control-plane API (as p4c names it), built in code."""

from __future__ import annotations

import pytest
from p4.config.v1 import p4info_pb2


def _add_action(info, aid, name, params=()):
    action = info.actions.add()
    action.preamble.id, action.preamble.name = aid, name
    action.preamble.alias = name.split(".")[-1]
    for i, (pname, width) in enumerate(params, start=1):
        action.params.add(id=i, name=pname, bitwidth=width)


def _add_table(info, tid, name, key, kind, width, action_ids, impl=0):
    table = info.tables.add()
    table.preamble.id, table.preamble.name = tid, name
    table.preamble.alias = name.split(".")[-1]
    if key:
        table.match_fields.add(id=1, name=key, bitwidth=width,
                               match_type=p4info_pb2.MatchField.MatchType.Value(kind))
    for aid in action_ids:
        table.action_refs.add(id=aid)
    if impl:
        table.implementation_id = impl
    table.size = 1024


def mrc_p4info(probe_group: bool = True) -> p4info_pb2.P4Info:
    """mrc.p4's P4Info; without `probe_group`, that of a program whose packet_out header has
    no probe_group field (an older copy of mrc.p4)."""
    info = p4info_pb2.P4Info()
    _add_action(info, 0x01000001, "MrcIngress.forward", [("port", 9)])
    _add_action(info, 0x01000002, "MrcIngress.drop")
    _add_action(info, 0x01000003, "MrcIngress.set_spray_mode", [("mode", 8), ("salt", 32)])
    _add_action(info, 0x01000004, "MrcIngress.set_thresholds",
                [("trim_threshold", 19), ("ecn_threshold", 19)])
    _add_table(info, 0x02000001, "MrcIngress.downlink", "hdr.ipv4.dstAddr", "LPM", 32,
               [0x01000001, 0x01000002])
    _add_table(info, 0x02000002, "MrcIngress.uplink", "hdr.ipv4.dstAddr", "LPM", 32,
               [0x01000001], impl=0x11000001)
    _add_table(info, 0x02000003, "MrcIngress.spray_config", None, None, 0, [0x01000003])
    _add_table(info, 0x02000004, "MrcIngress.source_label", "meta.label", "EXACT", 8,
               [0x01000001])
    _add_table(info, 0x02000005, "MrcIngress.port_thresholds", "standard_metadata.egress_spec",
               "EXACT", 9, [0x01000004])
    profile = info.action_profiles.add()
    profile.preamble.id, profile.preamble.name = 0x11000001, "MrcIngress.uplink_selector"
    profile.table_ids.append(0x02000002)
    profile.with_selector = True
    profile.size = 1024
    for cid, name, unit in ((0x12000001, "MrcEgress.tx_packets", "BOTH"),
                            (0x12000002, "MrcEgress.trimmed", "PACKETS"),
                            (0x12000003, "MrcEgress.ecn_marked", "PACKETS"),
                            (0x12000004, "MrcIngress.drops", "PACKETS")):
        counter = info.counters.add()
        counter.preamble.id, counter.preamble.name = cid, name
        counter.spec.unit = p4info_pb2.CounterSpec.Unit.Value(unit)
        counter.size = 8 if name.endswith("drops") else 512
    out_fields = ([("egress_port", 9), ("probe_group", 1), ("_pad", 6)] if probe_group
                  else [("egress_port", 9), ("_pad", 7)])
    for mid, name, fields in ((0x40000001, "packet_out", out_fields),
                              (0x40000002, "packet_in", [("ingress_port", 9), ("_pad", 7)])):
        header = info.controller_packet_metadata.add()
        header.preamble.id, header.preamble.name = mid, name
        for i, (field, width) in enumerate(fields, start=1):
            header.metadata.add(id=i, name=field, bitwidth=width)
    return info


@pytest.fixture
def p4info() -> p4info_pb2.P4Info:
    return mrc_p4info()


@pytest.fixture
def p4info_without_probe_group() -> p4info_pb2.P4Info:
    return mrc_p4info(probe_group=False)
