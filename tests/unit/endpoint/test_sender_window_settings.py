"""What `SenderConfig` tells the sender's window: nothing new unless set."""

import pytest

from endpoint.core.congestion import DctcpWindow
from endpoint.core.sender import MrcSender
from endpoint.core.sender_config import SenderConfig, emulated_fabric_config


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
