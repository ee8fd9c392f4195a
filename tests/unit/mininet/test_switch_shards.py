"""Switch shards: which switches share a `p4emu fabric` process, and its command line."""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from mrclab.fabric.spec import parse_spec
from mrclab.mininet.p4switch import switch_args
from mrclab.mininet.queues import QueueOptions
from mrclab.mininet.switch_shards import SwitchShard, plan_shards
from p4emu.switch.fabric_main import parse_fabric_args


def _ports(fabric, names):
    return sum(len(fabric.switches[n].ports) for n in names)


def test_fattree_shards_hold_whole_pods_and_balance_ports():
    fabric = parse_spec("fattree:k=4")
    shards = plan_shards(fabric, 2)
    assert len(shards) == 2
    assert sorted(n for s in shards for n in s) == sorted(fabric.switches)
    assert _ports(fabric, shards[0]) == _ports(fabric, shards[1]) == 40
    for shard in shards:
        pods = {fabric.switches[n].pod for n in shard} - {None}
        for pod in pods:  # a pod is never split
            assert {n for n, sw in fabric.switches.items() if sw.pod == pod} <= set(shard)
        assert sum(1 for n in shard if fabric.switches[n].pod is None) == 2  # cores shared


def test_k8_on_two_cores_and_more_shards_than_units():
    fabric = parse_spec("fattree:k=8")
    shards = plan_shards(fabric, 2)
    assert [len(s) for s in shards] == [40, 40]
    assert _ports(fabric, shards[0]) == _ports(fabric, shards[1])
    tiny = parse_spec("leafspine:leaves=2,spines=1,hosts=1")
    assert len(plan_shards(tiny, 8)) == 3  # one unit per switch: never an empty shard
    assert plan_shards(tiny, 1) == [sorted(tiny.switches,
                                           key=lambda n: tiny.switches[n].device_id)]


def test_planes_are_units_of_their_own():
    fabric = parse_spec("multiplane:planes=2,base=fattree:k=4")
    shards = plan_shards(fabric, 2)
    assert _ports(fabric, shards[0]) == _ports(fabric, shards[1])
    for shard in shards:
        pods = {(fabric.switches[n].plane, fabric.switches[n].pod) for n in shard}
        for plane, pod in pods - {(p, None) for p in (0, 1)}:
            assert {n for n, sw in fabric.switches.items()
                    if (sw.plane, sw.pod) == (plane, pod)} <= set(shard)


def test_bad_count_is_one_line():
    with pytest.raises(ValueError, match="switch processes 0: must be at least 1"):
        plan_shards(parse_spec("fattree:k=4"), 0)


@dataclass
class _Member:
    name: str
    grpc_port: int
    thrift_port: int
    ports: dict[int, str]

    def switch_args(self) -> list[str]:
        return switch_args("p4emu", self.grpc_port - 50000, self.ports, self.grpc_port,
                           self.thrift_port, 255, None, Path("/tmp/pcap dir"),
                           QueueOptions(depth=32))


def test_shard_command_is_what_p4emu_fabric_parses_back(tmp_path):
    members = [_Member("e1", 50001, 9001, {1: "e1-eth1", 2: "e1-eth2"}),
               _Member("a1", 50002, 9002, {1: "a1-eth1"})]
    shard = SwitchShard("shard1", members, tmp_path / "logs", tmp_path / "run")
    cmd = shard.command()
    assert cmd[:4] == [sys.executable, "-m", "p4emu", "fabric"]
    assert shard.log_file == (tmp_path / "logs" / "shard1.log").resolve()
    parsed = parse_fabric_args(cmd[4:])
    assert [o.device_id for o in parsed] == [1, 2]
    assert [o.thrift_port for o in parsed] == [9001, 9002]
    assert parsed[0].interfaces == {1: "e1-eth1", 2: "e1-eth2"}
    # a value with a space survives the quoting of each --switch
    assert "/tmp/pcap dir" in shlex.split(cmd[5])
