"""The faithful-emulation verdict on synthetic machine measurements."""

from __future__ import annotations

from mrclab.endpoint.core.rtt import QueueExplainedDelay
from mrclab.endpoint.report import RttReport, SenderReport
from mrclab.experiments.records import FlowRecord
from mrclab.experiments.validity import (
    BACKLOG_LIMIT_BYTES,
    Measured,
    combine,
    judge,
    late_acks,
    late_share,
    short_label,
)


def test_a_machine_that_keeps_up_is_faithful():
    v = judge(Measured(seconds=5, cpu_busy=0.6, cpu_nice=0.3, backlog_samples=[0, 2304] * 20,
                       delivered=100_000, lost=10))
    assert v.faithful and v.reasons == [] and short_label(v) == "faithful"
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


def _flow(counts: list[int]) -> FlowRecord:
    return FlowRecord("h1", "h2", 1000, sender=SenderReport(rtt=RttReport(
        queue_delay_counts=counts)))


def _flow_with_delays(samples: list[tuple[float, float, int]]) -> FlowRecord:
    """A flow record whose sender saw ACKs of (rtt, min_rtt, qmax)."""
    hist = QueueExplainedDelay()
    for rtt, min_rtt, qmax in samples:
        hist.update(rtt, min_rtt, qmax)
    return _flow(list(hist.counts))


def test_acks_the_queues_explain_are_not_late():
    # 5 hops of 18 ms frames (9000 bytes at 4 Mb/s): 90 ms per queued packet at most
    flows = [_flow_with_delays([(0.010 + 5 * (q + 2) * 0.018 * 0.9, 0.010, q)
                                for q in range(30)])] * 3
    assert late_share(flows, bound_s=0.090) == 0.0


def test_acks_delayed_outside_any_queue_are_late_and_judged():
    # a switch that stalled 0.8 s: the packet met shallow queues (qmax 2) yet came back late
    on_time = [(0.2, 0.01, 10)] * 95
    stalled = [(0.8, 0.01, 2)] * 5
    share = late_share([_flow_with_delays(on_time), _flow_with_delays(stalled)], 0.090)
    assert share == 0.05
    v = judge(Measured(seconds=5, cpu_busy=0.5, cpu_nice=0.0, late_share=share,
                       late_bound_s=0.090))
    assert not v.faithful and "5.0% of the ACKs came later" in v.reasons[0]
    assert short_label(v) == "unfaithful"  # not "CPU-bound": the CPU was not
    assert "90 ms per queued packet" in v.reasons[0]


def test_late_share_is_unknown_without_reports_and_ignores_foreign_histograms():
    assert late_share([_flow([]), _flow([])], 0.09) is None
    assert late_share([_flow([1, 2, 3])], 0.09) is None
    v = judge(Measured(seconds=5, cpu_busy=0.5, cpu_nice=0.0))
    assert v.faithful and v.late_share is None


def test_one_stall_in_a_short_phase_is_not_a_machine_that_fell_behind():
    # a quick incast phase: ~250 ACKs; one stall delays the few packets then in flight
    on_time = [(0.05, 0.01, 3)] * 246
    stalled = [(0.6, 0.01, 0)] * 4
    flows = [_flow_with_delays(on_time), _flow_with_delays(stalled)]
    assert late_acks(flows, 0.030) == (4, 250)
    v = judge(Measured(seconds=5, cpu_busy=0.5, cpu_nice=0.0, late_share=4 / 250,
                       late_count=4, late_bound_s=0.030))
    assert v.faithful
    # stalls that recur: more late ACKs than one window of every sender
    v = judge(Measured(seconds=5, cpu_busy=0.5, cpu_nice=0.0, late_share=20 / 1000,
                       late_count=20, late_bound_s=0.030))
    assert not v.faithful and "limit 1% and 16 ACKs" in v.reasons[0]
