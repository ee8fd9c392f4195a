"""The endpoint's transport over the simulated P4 fabric at the lab's figures (2 Mb/s
links, 1500-byte frames, the lab agent's 0.2 s RTO floor): what the incast experiment
shows in the lab, without root and the same for the same seed."""

import pytest

from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.host import FlowSpec
from mrclab.fabric.spec import parse_spec
from mrclab.sim import SimNetwork, SimSettings

TOTAL = 375_000  # bytes, shared by the senders: 1.5 s of the receiver's 2 Mb/s link
RATE = 2e6


def incast(n: int, trim: int) -> tuple[SimNetwork, float]:
    """`n` senders to h16 at once; the last byte's time over the ideal (TOTAL / RATE)."""
    settings = SimSettings(link_rate_bps=RATE, link_delay_s=0.3e-3, mtu=1500, queue_depth=64,
                           trim_threshold=trim, ecn_threshold=4 if trim else 0,
                           sample_interval_s=0.01)
    net = SimNetwork(parse_spec("fattree:k=4"), settings)
    net.start(probing=False)
    for i in range(n):
        net.add_flow(FlowSpec(f"h{i + 1}", "h16", TOTAL // n, seed=i + 1),
                     SenderConfig(min_rto=0.2))
    assert net.run_flows(60)
    end = max(f.sender.finish_time for f in net.flows)
    return net, end / (TOTAL * 8 / RATE)


def total(net: SimNetwork, stat: str) -> int:
    return sum(getattr(f.sender.stats, stat) for f in net.flows)


@pytest.mark.parametrize("n", [4, 15])
def test_a_trimming_incast_ends_near_the_ideal_without_timeouts(n):
    net, slowdown = incast(n, trim=8)
    assert total(net, "timeouts") == 0
    received = net.hosts["h16"].messages
    assert sorted(m.length for m in received if m.ok) == [TOTAL // n] * n
    assert total(net, "nacks") > 0  # the queue did trim
    # trimmed headers cross the bottleneck too: the senders must settle on windows that
    # fit rather than keep bouncing packets off the queue (quick adapt, paced resend)
    assert total(net, "nacks") < 1.5 * sum(f.sender.npkts for f in net.flows)
    assert slowdown <= 1.2


def test_a_drop_tail_incast_waits_for_timeouts():
    net, slowdown = incast(15, trim=0)
    assert total(net, "timeouts") > 0 and total(net, "nacks") == 0
    assert slowdown > incast(15, trim=8)[1] + 0.15
