"""The failover experiment's setup, analysis and goals on synthetic runs (seconds instead of
microseconds: the analysis only sees timelines and the controller's records)."""

from __future__ import annotations

import pytest

from mrclab.experiments import failover, runner
from mrclab.experiments.config import ExperimentError, Options
from mrclab.experiments.records import FailureEvents
from mrclab.fabric.reconvergence import Reconvergence

from .synthetic import T0, flow, run

HOSTS = 16


def _setup():
    setup = failover.setup(Options("failover", engine="sim", quick=True))
    setup.params.update(link_at=1.0, plane_at=3.0, bin_s=0.05, warmup_s=0.2, steady_s=0.6)
    return setup


def _down(link: str, at: float) -> Reconvergence:
    return Reconvergence(link=link, status="down", detected_at=T0 + at - 0.05,
                         programmed_at=T0 + at, detect_s=0.05, total_s=0.06,
                         from_command_s=None, switches=4, updates=8)


def _mode(flows, link_reroute: float | None) -> failover.FailoverRun:
    events = [_down("a7:3-c1:4", link_reroute)] if link_reroute is not None else []
    link = FailureEvents(link=("c1", "a7"), failed_at=1.0, reconvergence=events)
    plane = FailureEvents(failed_at=3.0, all_failed_at=3.0, reconvergence=events)
    return failover.FailoverRun(run(flows), link, plane)


def _flows(capacity: float, hit: tuple[float, float, float] | None,
           plane_dip: float) -> list:
    """16 flows at 0.9 of `capacity` each; flow 0 keeps hit[2] of its rate from hit[0] to
    hit[1]; after the plane fails at 3 s every flow stalls `plane_dip` s, then runs at half
    its rate (one of two planes left)."""
    rate = 0.9 * capacity
    out = []
    for i in range(HOSTS):
        pieces = [(0.0, rate)]
        if hit is not None and i == 0:
            pieces += [(hit[0], rate * hit[2]), (hit[1], rate)]
        pieces += [(3.0, 0.0), (3.0 + plane_dip, rate / 2)]
        out.append(flow(f"h{i + 1}", f"h{16 - i}", rate, 5.0, rates=pieces))
    return out


def test_ev_back_within_a_bin_and_ecmp_waiting_for_the_controller_meet_the_goals():
    setup = _setup()
    capacity = 2 * setup.link_rate  # two planes
    ev = _flows(capacity, (1.0, 1.1, 0.0), plane_dip=0.1)  # a stall of two bins, retired
    ecmp = _flows(capacity, (1.0, 2.2, 0.5), plane_dip=0.1)  # its plane-0 share until 2.2 s
    raw = {"pairs": [[f"h{i}", f"h{17 - i}"] for i in range(1, 17)], "size": 1, "planes": 2,
           "modes": {"ev": _mode(ev, 2.2), "ecmp": _mode(ecmp, 2.2)}}
    a = failover.analyse(setup, raw)
    ev_a = a["modes"]["ev"]
    assert ev_a["baseline"] == pytest.approx(0.9, rel=0.02)
    assert ev_a["stages"]["link"]["restored_s"] == 0.0  # one flow of 16: no dip below 95 %
    assert ev_a["stages"]["link"]["reroute_after_s"] == pytest.approx(1.2)
    assert ev_a["stages"]["plane"]["restored_s"] == pytest.approx(0.1, abs=0.051)
    assert ev_a["stages"]["plane"]["surviving_share"] == pytest.approx(0.5 - 2 / 32)
    (hit,) = a["modes"]["ecmp"]["flows_hit_by_link"]
    assert hit["flow"] == 0 and hit["share_kept"] == pytest.approx(0.5, abs=0.05)
    assert hit["back_after_s"] == pytest.approx(1.2, abs=0.051)
    judged = [g["met"] for g in failover.goals(setup, a)]
    assert judged == [True, True, True]
    assert {"summary", "goodput_bins"} == set(failover.tables(a))


def test_the_goals_fail_when_ev_waits_for_the_controller_or_ecmp_loses_nothing():
    setup = _setup()
    capacity = 2 * setup.link_rate
    # ev's whole fabric stalls until the controller: below 95 % until 2.2 s
    slow = [flow(f"h{i + 1}", f"h{16 - i}", 0.9 * capacity, 5.0,
                 rates=[(0.0, 0.9 * capacity), (1.0, 0.3 * capacity), (2.2, 0.9 * capacity),
                        (3.0, 0.45 * capacity)]) for i in range(HOSTS)]
    calm = _flows(capacity, None, plane_dip=0.0)
    raw = {"pairs": [[f"h{i}", f"h{17 - i}"] for i in range(1, 17)], "size": 1, "planes": 2,
           "modes": {"ev": _mode(slow, 2.2), "ecmp": _mode(calm, 2.2)}}
    a = failover.analyse(setup, raw)
    goals = failover.goals(setup, a)
    assert [g["met"] for g in goals] == [False, True, False]
    assert "0 flows hit" in goals[2]["measured"]


def test_rates_before_the_failure_are_measured_in_the_steady_window_not_the_start():
    """ECMP's start runs above its steady state (windows not yet in hash collisions): a
    flow judged against its start looks hit by a failure that did not touch it."""
    setup = _setup()  # steady window: the 0.6 s before the link fails at 1 s
    capacity = 2 * setup.link_rate
    fast_start = [flow(f"h{i + 1}", f"h{16 - i}", 0.9 * capacity, 5.0,
                       rates=[(0.0, 1.3 * capacity), (0.3, 0.6 * capacity)])
                  for i in range(HOSTS)]
    raw = {"pairs": [[f"h{i}", f"h{17 - i}"] for i in range(1, 17)], "size": 1, "planes": 2,
           "modes": {"ecmp": _mode(fast_start, 2.2)}}
    a = failover.analyse(setup, raw)["modes"]["ecmp"]
    assert a["baseline"] == pytest.approx(0.6, rel=0.02)
    assert a["flows_hit_by_link"] == []
    setup.params["steady_s"] = 1.0  # from the warm-up: the start counts, every flow "hit"
    assert len(failover.analyse(setup, raw)["modes"]["ecmp"]["flows_hit_by_link"]) == HOSTS


def test_a_failure_after_an_interrupted_run_ended_is_not_measured_nor_met():
    setup = _setup()
    capacity = 2 * setup.link_rate
    # interrupted at 2 s: the link failed at 1 s, the plane (at 3 s) never did
    ended = [flow(f"h{i + 1}", f"h{16 - i}", 0.9 * capacity, 2.0) for i in range(HOSTS)]
    raw = {"pairs": [[f"h{i}", f"h{17 - i}"] for i in range(1, 17)], "size": 1, "planes": 2,
           "modes": {"ev": _mode(ended, None)}}
    a = failover.analyse(setup, raw)
    stages = a["modes"]["ev"]["stages"]
    assert stages["link"]["reached"] and not stages["plane"]["reached"]
    assert stages["plane"]["restored_s"] is None and stages["plane"]["mean_after"] is None
    link, plane = failover.goals(setup, a)
    assert link["met"] and "0 us after the failure" in link["measured"]
    assert not plane["met"]
    assert "the run ended at 2000000 us, before the failure at 3000000 us" in plane["measured"]


@pytest.mark.parametrize("options, words", [
    (Options("failover"), "engine\\(s\\) sim only, not lab"),
    (Options("failover", engine="sim", spec="fattree:k=4"), "at least 2"),
    (Options("failover", engine="sim", fail_at="400us"), "expected LINK,PLANE"),
    (Options("failover", engine="sim", fail_at="400us,x"), "bad --fail-at 'x'"),
    (Options("failover", engine="sim", fail_at="50us,900us"), "must fail after 140 us"),
    (Options("failover", engine="sim", fail_at="500us,400us"), "link must fail before the plane"),
    (Options("failover", engine="sim", fail_at="400us,900us", duration="800us"),
     "the plane before the flows end"),
    (Options("permutation", engine="sim", fail_at="400us,900us"), "failover has"),
])
def test_what_failover_cannot_run_is_one_line(options, words):
    with pytest.raises(ExperimentError, match=words) as info:
        runner.plan(options)
    assert "\n" not in str(info.value)


def test_surviving_share_of_a_link_and_a_plane():
    assert failover.surviving_share(128, 8, 0) == pytest.approx(1 - 2 / 1024)
    assert failover.surviving_share(128, 8, 1) == pytest.approx(7 / 8 - 2 / 1024)


def test_fail_at_and_duration_set_the_failures_and_the_flows():
    """Without a flow length the flows run as long past the plane as by default."""
    def params(**kw):
        return runner.plan(Options("failover", engine="sim", quick=True, **kw))[1].params

    assert (params()["link_at"], params()["plane_at"], params()["seconds"]) == \
        (1.0e-3, 2.4e-3, 2.8e-3)
    p = params(fail_at="400us,750us")
    assert (p["link_at"], p["plane_at"]) == pytest.approx((400e-6, 750e-6))
    assert p["seconds"] == pytest.approx(1.15e-3)
    assert params(fail_at="400us,750us", duration="1.1ms")["seconds"] == pytest.approx(1.1e-3)
    assert params(duration="3ms")["seconds"] == pytest.approx(3e-3)
