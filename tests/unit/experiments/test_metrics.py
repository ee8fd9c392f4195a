"""Metric code on synthetic data: CDF, fairness, goodput from cumulative samples, binning,
recovery after a failure."""

from __future__ import annotations

import pytest

from mrclab.experiments import metrics


def test_cdf_steps_and_merges_duplicates():
    assert metrics.cdf([0.5, 0.2, 0.5, 1.0]) == [(0.2, 0.25), (0.5, 0.75), (1.0, 1.0)]
    assert metrics.cdf([]) == []


def test_jain_is_one_for_equal_shares_and_one_over_n_for_a_hog():
    assert metrics.jain([3, 3, 3, 3]) == pytest.approx(1.0)
    assert metrics.jain([1, 0, 0, 0]) == pytest.approx(0.25)
    # ecmp-like: two flows at half rate among four
    assert metrics.jain([1, 1, 0.5, 0.5]) == pytest.approx(0.9)
    with pytest.raises(ValueError):
        metrics.jain([])


def test_percentile_interpolates():
    assert metrics.percentile([1, 2, 3, 4, 5], 50) == 3
    assert metrics.percentile([0, 10], 25) == pytest.approx(2.5)


def test_percentile_interpolates_between_the_closest_ranks_of_the_sorted_values():
    # rank (n - 1) q / 100: 2.7 for q=90 of four values, between 30 and 40
    assert metrics.percentile([40, 10, 30, 20], 90) == pytest.approx(37.0)
    assert metrics.percentile([40, 10, 30, 20], 0) == 10
    assert metrics.percentile([40, 10, 30, 20], 100) == 40
    assert metrics.percentile([7], 99) == 7
    with pytest.raises(ValueError):
        metrics.percentile([], 50)


def test_describe_reports_mean_min_and_fairness():
    d = metrics.describe([0.9, 0.95, 0.5, 1.0])
    assert d["n"] == 4 and d["min"] == 0.5 and d["mean"] == pytest.approx(0.8375)
    assert d["jain"] == pytest.approx(metrics.jain([0.9, 0.95, 0.5, 1.0]))
    assert metrics.describe([]) == {"n": 0}


def _ramp(rate_bps: float, until: float, step: float = 0.05):
    """Cumulative bytes of a flow at a constant rate, sampled every `step`."""
    n = int(round(until / step))
    return [(i * step, rate_bps / 8 * i * step) for i in range(n + 1)]


def test_value_at_interpolates_and_clamps():
    samples = [(0.0, 0.0), (1.0, 100.0), (2.0, 100.0)]
    assert metrics.value_at(samples, 0.5) == pytest.approx(50.0)
    assert metrics.value_at(samples, -1) == 0.0
    assert metrics.value_at(samples, 5) == 100.0


def test_value_at_a_repeated_time_is_the_last_sample_there():
    # a counter that jumps at t=1 (two samples at that time)
    samples = [(0.0, 0.0), (1.0, 10.0), (1.0, 30.0), (2.0, 40.0)]
    assert metrics.value_at(samples, 1.0) == 30.0
    assert metrics.value_at(samples, 0.5) == pytest.approx(5.0)
    assert metrics.value_at(samples, 1.5) == pytest.approx(35.0)
    with pytest.raises(ValueError):
        metrics.value_at([], 1.0)


def test_window_rate_recovers_a_constant_rate():
    samples = _ramp(2e6, 4.0)
    assert metrics.window_rate(samples, 0.5, 3.3) == pytest.approx(2e6)
    with pytest.raises(ValueError):
        metrics.window_rate(samples, 1.0, 1.0)


def test_bin_rates_show_a_stall():
    # 1 Mb/s, nothing between 1.0 and 1.5 s, then 1 Mb/s again
    samples = [(t, v) for t, v in _ramp(1e6, 1.0)]
    stalled = samples[-1][1]
    samples += [(1.5, stalled)] + [(1.5 + t, stalled + v) for t, v in _ramp(1e6, 1.0)[1:]]
    bins = metrics.bin_rates(samples, 0.0, 2.5, 0.05)
    assert len(bins) == 50
    assert bins[0] == pytest.approx(1e6)
    assert all(b == pytest.approx(0.0) for b in bins[20:30])
    assert bins[35] == pytest.approx(1e6)
    assert metrics.bin_rates(samples, 1.0, 1.0, 0.05) == []
    with pytest.raises(ValueError):
        metrics.bin_rates([], 0.0, 1.0, 0.05)


def test_recovery_time_measures_the_outage_at_bin_resolution():
    width = 0.05
    bins = [1e6] * 20 + [0.0] * 10 + [1e6] * 30  # out from 1.0 s to 1.5 s
    assert metrics.recovery_time(bins, width, 0.0, 1.0, 1e6, 0.5, 3.0) == pytest.approx(0.5)
    # no bin below half the baseline: no visible outage
    assert metrics.recovery_time([1e6] * 60, width, 0.0, 1.0, 1e6, 0.5, 3.0) == 0.0
    # a failure in the middle of a bin counts that bin
    assert metrics.recovery_time(bins, width, 0.0, 0.98, 1e6, 0.5, 3.0) == pytest.approx(0.52)
    # still out when the link comes back: not recovered
    assert metrics.recovery_time([1e6] * 20 + [0.0] * 40, width, 0.0, 1.0, 1e6, 0.5,
                                 3.0) is None


def test_recovery_time_counts_a_dip_that_comes_later():
    # healthy right after the failure, then a dip 0.3 s later (losses found late): the
    # flow is back only after the dip
    bins = [1e6] * 26 + [0.2e6] * 3 + [1e6] * 31
    assert metrics.recovery_time(bins, 0.05, 0.0, 1.0, 1e6, 0.5, 3.0) == pytest.approx(0.45)
    # one low bin is noise, not an outage
    noisy = [1e6] * 30 + [0.3e6] + [1e6] * 29
    assert metrics.recovery_time(noisy, 0.05, 0.0, 1.0, 1e6, 0.5, 3.0) == 0.0
    # a dip after `until` (the link is back by then) is not the failure's
    late = [1e6] * 50 + [0.0] * 2 + [1e6] * 8
    assert metrics.recovery_time(late, 0.05, 0.0, 1.0, 1e6, 0.5, 2.0) == 0.0


def test_slowdown_and_utilisation():
    assert metrics.slowdown(1.2, 1.0) == pytest.approx(1.2)
    assert metrics.link_utilisation(250_000, 2.0, 1e6) == pytest.approx(1.0)
    with pytest.raises(ValueError):
        metrics.slowdown(1.0, 0.0)


def test_times_are_shown_in_the_unit_of_their_engine():
    from mrclab.experiments.metrics import format_seconds, significant, time_unit

    assert format_seconds(1.95) == "1.95 s"  # the lab's recoveries
    assert format_seconds(0.47) == "470 ms"
    assert format_seconds(85e-6) == "85 us"  # the simulator's
    assert format_seconds(1.06e-3) == "1.06 ms"
    assert format_seconds(None) == "never"
    assert time_unit(300e-6) == (1e6, "us") and time_unit(4.5) == (1.0, "s")
    assert significant(0.00022899999999999998) == 0.000229
