"""RttQuantile and ReorderWindow in isolation."""

from mrclab.endpoint.core.recovery import ReorderWindow
from mrclab.endpoint.core.rtt import QueueExplainedDelay, RttQuantile, share_above


def test_quantile_rises_at_once_and_falls_at_recount():
    q = RttQuantile(size=100, quantile=0.9, every=10)
    for _ in range(100):
        q.update(0.001)
    assert q.value == 0.001
    q.update(0.05)
    assert q.value == 0.05  # a straggler counts right away
    for _ in range(100):
        q.update(0.002)
    assert q.value == 0.002  # gone from the window: forgotten


def test_quantile_ignores_rare_outliers():
    q = RttQuantile(size=200, quantile=0.99, every=10)
    for i in range(400):
        q.update(0.1 if i % 200 == 0 else 0.001)
    assert q.value == 0.001


def test_reorder_window_grows_by_lateness_capped_and_decays():
    w = ReorderWindow()
    w.on_spurious(1.0, lateness=0.004, min_rtt=0.001, cap=0.02)
    assert w.extra == 0.004 and w.spurious == 1
    w.on_spurious(1.0, lateness=0.0, min_rtt=0.001, cap=0.02)
    assert w.extra == 0.006  # at least x1.5 per spurious retransmission
    w.on_spurious(1.0, lateness=1.0, min_rtt=0.001, cap=0.02)
    assert w.extra == 0.02
    w.decay(1.0 + 15 * 0.001, srtt=0.001)
    assert w.extra == 0.02  # not yet 16 RTTs
    w.decay(1.0 + 16 * 0.001, srtt=0.001)
    assert w.extra == 0.01
    for i in range(2, 40):
        w.decay(1.0 + 16 * 0.001 * i, srtt=0.001)
    assert w.extra == 0.0


def test_queue_explained_delay_buckets_the_delay_per_queued_packet():
    hist = QueueExplainedDelay()
    hist.update(rtt=0.110, min_rtt=0.010, qmax=3)  # 100 ms over 5 packets: 20 ms each
    hist.update(rtt=0.005, min_rtt=0.010, qmax=0)  # below the minimum: no excess
    assert sum(hist.counts) == 2 and hist.counts[0] == 1
    assert share_above(hist.counts, 0.010) == 0.5  # 20 ms lies surely above 10 ms
    assert share_above(hist.counts, 0.020) == 0.0  # its bucket straddles 20 ms: not surely above
    assert share_above(hist.counts, 1.0) == 0.0
