"""The faithful-emulation verdict on synthetic machine measurements."""

from __future__ import annotations

from experiments.validity import BACKLOG_LIMIT_BYTES, Measured, combine, judge, short_label


def test_a_machine_that_keeps_up_is_faithful():
    v = judge(Measured(seconds=5, cpu_busy=0.6, cpu_nice=0.3, backlog_samples=[0, 2304] * 20,
                       delivered=100_000, lost=10))
    assert v.faithful and v.reasons == [] and short_label(v.as_dict()) == "faithful"
    assert v.ingress_loss_share == 0.0001


def test_frames_lost_before_the_switch_read_them_make_it_unfaithful():
    v = judge(Measured(seconds=5, cpu_busy=0.6, cpu_nice=0.0, delivered=10_000, lost=500))
    assert not v.faithful and "missed 5.00%" in v.reasons[0]


def test_a_standing_socket_backlog_makes_it_unfaithful():
    v = judge(Measured(seconds=5, cpu_busy=0.8, cpu_nice=0.0,
                       backlog_samples=[BACKLOG_LIMIT_BYTES * 2] * 50))
    assert not v.faithful and "backlog" in v.reasons[0]


def test_a_saturated_cpu_makes_it_unfaithful_but_niced_work_does_not():
    assert not judge(Measured(seconds=5, cpu_busy=0.99, cpu_nice=0.0)).faithful
    assert judge(Measured(seconds=5, cpu_busy=0.5, cpu_nice=0.49)).faithful


def test_bmv2_without_ingress_figures_is_judged_on_the_rest():
    v = judge(Measured(seconds=5, cpu_busy=0.5, cpu_nice=0.0, delivered=None, lost=None))
    assert v.faithful and v.ingress_loss_share is None


def test_combined_verdict_is_unfaithful_when_one_phase_was():
    good = judge(Measured(seconds=5, cpu_busy=0.5, cpu_nice=0.1))
    bad = judge(Measured(seconds=5, cpu_busy=0.99, cpu_nice=0.0))
    both = combine([good, bad])
    assert not both.faithful and both.cpu_busy == 0.99 and len(both.reasons) == 1
    assert combine([good, good]).faithful
