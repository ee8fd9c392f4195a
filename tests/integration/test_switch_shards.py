"""Switches in shared processes (mrclab.mininet.switch_shards): a fat-tree k=4 whose 20 p4emu
switches run in 2 `p4emu fabric` processes. Killing one process takes exactly its switches
down, as the controller sees them; restarting it brings them back, re-programmed."""

from __future__ import annotations

import os
import signal

import pytest

from mrclab.fabric.generators import PortBases
from mrclab.lab.counters import switch_counters
from mrclab.lab.lab import Lab, LabConfig
from mrclab.mininet.reachability import ping_all_pairs

from .waiting import wait_for

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sharded_lab(tmp_path_factory):
    config = LabConfig(spec="fattree:k=4", target="p4emu", switch_processes=2,
                       build_dir=tmp_path_factory.mktemp("shards"),
                       bases=PortBases(grpc=55100, thrift=14100))
    lab = Lab(config)
    try:
        lab.start()
        yield lab
    finally:
        lab.stop()


def _connected(lab: Lab) -> dict[str, bool]:
    return {name: s.primary for name, s in lab.status().switches.items()}


def test_two_processes_run_every_switch_and_every_pair_reaches(sharded_lab):
    shards = sharded_lab.net.shards
    assert len(shards) == 2 and all(sh.alive() for sh in shards)
    members = [m.name for sh in shards for m in sh.members]
    assert sorted(members) == sorted(sharded_lab.fabric.switches)  # each once
    assert sharded_lab.unprogrammed == [] and sharded_lab.missing_switches == []
    assert wait_for(lambda: not ping_all_pairs(sharded_lab.net.net, sharded_lab.fabric), 10)
    # each switch answers on its own runtime port, with only its own ports
    sw = sharded_lab.net.switch("e1")
    assert sw.shard is shards[0] or sw.shard is shards[1]
    counters = switch_counters(sharded_lab, "e1")
    assert sorted(counters.ports) == sorted(sharded_lab.fabric.switches["e1"].ports)


def test_killed_shard_takes_exactly_its_switches_down_and_comes_back(sharded_lab):
    victim = sharded_lab.net.shards[0]
    down = {m.name for m in victim.members}
    os.kill(victim.process.pid, signal.SIGKILL)
    seen = wait_for(lambda: (c := _connected(sharded_lab)) and
                    {n for n, up in c.items() if not up} == down and c, 20)
    assert seen, f"the controller did not see exactly {sorted(down)} go: {_connected(sharded_lab)}"
    assert all(seen[n] for n in sharded_lab.fabric.switches if n not in down)
    before = {n: s.connects for n, s in sharded_lab.status().switches.items()}
    sharded_lab.restart_switch(victim.members[0].name)  # the whole shard restarts
    assert victim.alive()
    back = wait_for(lambda: all((s := sharded_lab.status()).switches[n].synced
                                and s.switches[n].connects > before[n] for n in down), 40)
    assert back, "the restarted shard's switches were not re-programmed"
    assert wait_for(lambda: not ping_all_pairs(sharded_lab.net.net, sharded_lab.fabric), 20)
