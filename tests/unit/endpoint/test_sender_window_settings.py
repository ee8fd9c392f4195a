"""What `SenderConfig` tells the sender's window: nothing new unless set."""

import pytest

from mrclab.endpoint.core.congestion import DctcpWindow, PlaneShare
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import SenderConfig, emulated_fabric_config


def test_the_lab_s_senders_keep_the_window_s_own_gain_and_slow_start():
    for cfg in (SenderConfig(), emulated_fabric_config()):
        assert cfg.window_settings() == {}
        cc = MrcSender(b"x" * 5000, 1, cfg).cc
        assert (cc.gain, cc.ssthresh, cc.alpha) == (1 / 4, float("inf"), 1.0)


def test_a_datacenter_sender_gets_its_gain_and_starts_without_slow_start():
    cfg = SenderConfig(init_cwnd=43, dctcp_gain=1 / 8, init_ssthresh=43, dctcp_init_alpha=0.0)
    cc = MrcSender(b"x" * 5000, 1, cfg).cc
    assert (cc.cwnd, cc.gain, cc.ssthresh, cc.alpha, cc.alpha_measured) == (43, 1 / 8, 43, 0, True)
    # the first window's fraction (a quarter marked) is averaged in, not taken whole
    for i in range(40):
        cc.on_feedback(i % 4 == 0, now=20e-6 + i * 15e-6 / 40, srtt=15e-6)
    cc.on_feedback(False, now=36e-6, srtt=15e-6)
    assert cc.alpha == pytest.approx(10 / 41 / 8)
    assert cc.cwnd == pytest.approx(43 * (1 - 10 / 41 / 16), rel=0.02)


def test_a_window_class_with_the_original_signature_still_fits():
    made = []

    class Student(DctcpWindow):
        def __init__(self, cwnd: float, min_cwnd: float, max_cwnd: float) -> None:
            super().__init__(cwnd=cwnd, min_cwnd=min_cwnd, max_cwnd=max_cwnd)
            made.append(self)

    MrcSender(b"x" * 5000, 1, SenderConfig(), window_class=Student)
    assert made
    with pytest.raises(TypeError):
        MrcSender(b"x" * 5000, 1, SenderConfig(dctcp_gain=0.1), window_class=Student)


def test_proportional_increase_grows_the_window_by_how_far_the_queues_are_below_target():
    plain = DctcpWindow(cwnd=40, ssthresh=40)
    pi = DctcpWindow(cwnd=40, ssthresh=40, delay_target=5e-6)
    for w in (plain, pi):
        w.on_feedback(False, now=1e-6, srtt=15e-6, queue_delay=0.0)
    assert plain.cwnd == pytest.approx(40 + 1 / 40)
    assert pi.cwnd == pytest.approx(40 + 1 / 40 + 1)  # empty queues: one more per ACK
    before = pi.cwnd
    pi.on_feedback(False, now=2e-6, srtt=15e-6, queue_delay=4e-6)
    assert pi.cwnd == pytest.approx(before + 1 / before + 0.2)
    before = pi.cwnd
    pi.on_feedback(False, now=3e-6, srtt=15e-6, queue_delay=6e-6)  # above target: additive
    assert pi.cwnd == pytest.approx(before + 1 / before)
    before = pi.cwnd
    pi.on_feedback(True, now=4e-6, srtt=15e-6, queue_delay=0.0)  # a mark never grows it
    assert pi.cwnd <= before


def _rtts(w: DctcpWindow, n: int, queue_delay: float, start: float = 0.0) -> float:
    """`n` RTTs of 10 us, each answering the whole window unmarked; the time after."""
    now = start
    for _ in range(n):
        acks = int(w.cwnd)
        for i in range(acks):
            w.on_feedback(False, now=now + 10e-6 * (i + 1) / acks, srtt=10e-6,
                          queue_delay=queue_delay)
        now += 10e-6
    return now


def test_fast_increase_grows_a_window_a_quarter_per_rtt_once_a_whole_window_met_no_queue():
    """After a cut the path may clear at once (the collective's others finished): at one
    packet per RTT a window of 40 took 300 RTTs back to a BDP of 344."""
    fast = DctcpWindow(cwnd=40, ssthresh=40, alpha=0.0, alpha_measured=True, fast_delay=1e-6)
    _rtts(fast, 1, queue_delay=0.0)  # the first window only counts
    assert fast.cwnd == pytest.approx(41, abs=0.1)
    _rtts(fast, 4, queue_delay=0.0)
    assert fast.cwnd > 41 * 1.25 ** 4 - 1
    queued = DctcpWindow(cwnd=40, ssthresh=40, alpha=0.0, alpha_measured=True, fast_delay=1e-6)
    queued.on_feedback(False, now=0.0, srtt=10e-6, queue_delay=3e-6)  # the least delay seen
    _rtts(queued, 5, queue_delay=5e-6)  # packets that queued 2 us more: additive only
    assert queued.cwnd == pytest.approx(45, abs=0.2)
    # no queue is the least delay seen (a full frame's RTT over a header's), not 0
    offset = DctcpWindow(cwnd=40, ssthresh=40, alpha=0.0, alpha_measured=True, fast_delay=1e-6)
    _rtts(offset, 5, queue_delay=2e-6)
    assert offset.cwnd > 41 * 1.25 ** 4 - 1
    # a mark starts the count again: a whole window without one before growing fast
    now = _rtts(fast, 1, queue_delay=0.0)
    fast.on_feedback(True, now=now, srtt=10e-6, queue_delay=0.0)
    before = fast.cwnd
    fast.on_feedback(False, now=now + 1e-6, srtt=10e-6, queue_delay=0.0)
    assert fast.cwnd == pytest.approx(before + 1 / before)
    plain = DctcpWindow(cwnd=40, ssthresh=40, alpha=0.0, alpha_measured=True)
    _rtts(plain, 5, queue_delay=0.0)  # off unless told (the lab's senders)
    assert plain.cwnd == pytest.approx(45, abs=0.2)


def test_only_a_source_routed_sender_gets_the_delay_target_every_one_the_fast_increase():
    """Hashed EVs load their paths unevenly: the growth filled the busiest one into marks
    (simulated permutation k=4: ev 83.8 -> 77.4 % with it)."""
    import argparse

    from mrclab.experiments.transfer import transfer_config

    fabric = {"min_rto": 20e-6, "initial_rto": 50e-6, "max_rto": 0.01, "init_cwnd": 43.0,
              "delay_target": 5e-6, "fast_delay": 1e-6}
    args = argparse.Namespace(evs=8, qmax_threshold=0, min_rto=None, route=[])
    common = {"mss": 4028, "planes": 1, "seed": 1, "nonce": 1, "idle_timeout": 1.0}
    hashed = transfer_config(args, fabric=fabric, **common)
    assert hashed.delay_target is None and "delay_target" not in hashed.window_settings()
    assert MrcSender(b"x" * 5000, 1, hashed).cc.fast_delay == 1e-6  # every sender's
    args.route = ["1,2,3"]
    routed = transfer_config(args, fabric=fabric, **common)
    assert routed.delay_target == 5e-6
    assert MrcSender(b"x" * 5000, 1, routed).cc.delay_target == 5e-6


def test_a_plane_counts_as_left_out_only_after_an_rtt_suspect_and_gets_its_share_back():
    share, cc = PlaneShare(4), DctcpWindow(cwnd=40, min_cwnd=1, max_cwnd=1000)
    cc.ssthresh = 40
    rtt = 0.01
    assert not share.refit(cc, frozenset({0, 2, 3}), rtt, 0.0)  # a congestion loss: wait
    assert not share.refit(cc, None, rtt, 0.005)  # its next ACK cleared it: nothing moved
    assert not share.refit(cc, frozenset({0, 2, 3}), rtt, 0.02)
    assert share.refit(cc, frozenset({0, 2, 3}), rtt, 0.04)  # suspect for an RTT: out
    assert (cc.cwnd, share.set_aside, share.in_use, cc.ssthresh) == (30, 10, 3, 30)
    cc.cwnd = 24  # marks since: the share set aside does not shrink with the window
    assert share.refit(cc, None, rtt, 0.06)
    assert (cc.cwnd, share.set_aside, share.in_use, cc.ssthresh) == (34, 0, 4, 34)
