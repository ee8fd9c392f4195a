"""Incast over the simulated fabric: the shape of the fabric's incast experiment (15 senders,
375 kB in all, a 2 Mb/s receiver port trimming above 8 packets), deterministic."""

import pytest

from endpoint.core.sender import SenderConfig
from endpoint.sim import PathSpec, run_incast

TOTAL = 375_000
CFG = SenderConfig(min_rto=0.2)  # the experiment's RTO floor


def port(trim: int | None) -> PathSpec:
    return PathSpec(delay=1.8e-3, bandwidth=2e6, trim_threshold=trim, ecn_threshold=4)


@pytest.mark.parametrize("n", [4, 15])
def test_trimming_incast_completes_near_the_ideal_without_timeouts(n):
    r = run_incast(n, TOTAL, port(8), sender_cfg=CFG)
    assert r.intact == n
    assert r.total("timeouts") == 0 and r.bottleneck.tail_dropped == 0
    assert r.bottleneck.trimmed == r.total("nacks") > 0  # every trim NACKed, none lost
    # trimmed headers take the bottleneck from the data: past the first windows' burst the
    # senders must settle on windows that fit, not keep packets bouncing off the queue
    # (3 trims per packet at N = 15 before the quick adapt and the paced resend)
    assert r.bottleneck.trimmed < 1.5 * sum(s.npkts for s in r.senders)
    assert r.slowdown <= 1.2


def test_drop_tail_incast_waits_for_timeouts():
    r = run_incast(15, TOTAL, port(None), sender_cfg=CFG)
    assert r.intact == 15
    assert r.bottleneck.tail_dropped > 0 and r.total("timeouts") > 0
    assert r.slowdown > run_incast(15, TOTAL, port(8), sender_cfg=CFG).slowdown
