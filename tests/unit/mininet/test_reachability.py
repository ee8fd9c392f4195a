"""All-pairs reachability paces its pings by the fabric's size."""

from __future__ import annotations

import pytest

from mrclab.fabric.spec import parse_spec
from mrclab.mininet.reachability import PACKET_HOPS_PER_S, ping_interval_ms


@pytest.mark.parametrize("spec,interval", [("fattree:k=4", 32), ("fattree:k=8", 256),
                                           ("leafspine:leaves=2,spines=1,hosts=1", 3)])
def test_all_hosts_together_stay_within_the_packet_hop_budget(spec, interval):
    fabric = parse_spec(spec)
    assert ping_interval_ms(fabric) == interval
    # each host sends one echo request per interval; request and reply cross every switch
    per_s = len(fabric.hosts) * 1000 / interval * 2 * fabric.max_switch_hops()
    assert per_s <= PACKET_HOPS_PER_S
