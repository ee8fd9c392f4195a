"""Each experiment's analysis and goals on synthetic runs: the figures the report states
follow from the flows' timelines, and the goals judge them as the issue asks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mrclab.experiments import failure, flowstats, incast, permutation, planes, runner, signals
from mrclab.experiments.config import ExperimentError, Options
from mrclab.experiments.progress import Progress
from mrclab.experiments.records import FailureEvents, PhaseWithEvents, PortCounters
from mrclab.experiments.runner import MIN_FILL, trial_failures
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.fabric.spec import parse_spec

from .synthetic import T0, failed, flow, receiver, run, verdict

RATE = 1_000_000


def test_permutation_ev_above_ecmp_with_collisions():
    setup = permutation.setup(Options("permutation", quick=True))
    setup.rate_bps = RATE
    # one ev flow stalls for its first 0.5 s (a slow start): inside the warm-up, so its
    # steady-state goodput is the others', but its whole transfer took 4.5 s
    ev = [flow(f"h{i}", f"h{i + 8}", 0.85 * RATE, 4.0, stall=(0.0, 0.5) if i == 0 else None)
          for i in range(4)]
    # two ecmp flows collide on one core link: half rate each
    ecmp = [flow("h0", "h8", 0.9 * RATE, 4.0), flow("h1", "h9", 0.9 * RATE, 4.0),
            flow("h2", "h10", 0.45 * RATE, 8.0), flow("h3", "h11", 0.45 * RATE, 8.0)]
    links = [("a1", 3, "c1", 1)]
    counters = {"a1": {3: PortCounters(tx_bytes=1_250_000)},
                "c1": {1: PortCounters(tx_bytes=625_000)}}
    source = [flow(f"h{i}", f"h{i + 8}", 0.95 * RATE, 4.0) for i in range(3)]
    source.append(flow("h3", "h11", 0.75 * RATE, 5.0))
    raw = {"core_links": links, "modes": {"ecmp": run(ecmp, counters),
                                          "ev": run(ev, counters),
                                          "source": run(source, counters)}}
    a = permutation.analyse(setup, raw)
    assert a["modes"]["ev"]["stats"]["mean"] == pytest.approx(0.85, rel=0.02)
    assert a["modes"]["ev"]["stats"]["min"] == pytest.approx(0.85, rel=0.02)
    assert a["modes"]["ev"]["transfer_stats"]["min"] == pytest.approx(0.85 * 4 / 4.5, rel=0.02)
    assert a["modes"]["ecmp"]["stats"]["min"] == pytest.approx(0.45, rel=0.02)
    assert a["modes"]["ecmp"]["stats"]["jain"] < a["modes"]["ev"]["stats"]["jain"]
    assert a["modes"]["ev"]["core_load"][0] == {"link": "a1-c1", "up": 1.0, "down": 0.5}
    goals = {g["goal"]: g["met"] for g in permutation.goals(setup, a)}
    assert goals["ecmp below ev (mean and minimum)"]
    assert goals["ev mean goodput >= 90 % of the link rate"] is False
    source_goal = next(g for g in permutation.goals(setup, a) if g["goal"].startswith("source"))
    assert source_goal["met"] is False and "min 75.0%" in source_goal["measured"]
    assert set(permutation.tables(a)) == {"summary", "flows", "core_load"}


def test_permutation_minimum_goal_is_not_met_when_a_transfer_failed():
    setup = permutation.setup(Options("permutation", quick=True))
    setup.rate_bps = RATE
    ev = [flow(f"h{i}", f"h{i + 8}", 0.95 * RATE, 4.0) for i in range(4)]
    crashed = failed("h4", "h12")
    a = permutation.analyse(setup, {"core_links": [], "modes": {"ev": run(ev + [crashed])}})
    assert a["modes"]["ev"]["failed_flows"] == 1
    assert a["modes"]["ev"]["stats"]["min"] == pytest.approx(0.95, rel=0.02)  # of the others
    goal = next(g for g in permutation.goals(setup, a) if "minimum" in g["goal"])
    assert goal["met"] is False and "1 transfer(s) failed" in goal["measured"]


def test_incast_slowdown_timeouts_and_drops():
    setup = incast.setup(Options("incast", quick=True))
    setup.rate_bps = RATE
    size = 31_250  # each of 4: 125 kB in all, 1 s at the rate
    trim = [flow(f"h{i}", "h16", RATE / 4, 1.05, size=size) for i in range(4)]
    drop = [flow(f"h{i}", "h16", RATE / 4, 1.5, size=size, timeouts=2) for i in range(4)]
    raw = {"runs": [
        incast.IncastRun("trim", 4, 8, run(trim, receivers={
            "h16": receiver(data_packets=400, trimmed=30)})),
        incast.IncastRun("droptail", 4, 0, run(drop, receivers={
            "h16": receiver(data_packets=330)}))]}
    for f in trim + drop:
        f.sender.counters.data_packets_sent = 100
    a = incast.analyse(setup, raw)
    t, d = a["rows"]
    assert t["ideal_s"] == pytest.approx(1.0) and t["slowdown"] == pytest.approx(1.05)
    assert t["timeouts"] == 0 and t["dropped"] == 0
    assert d["timeouts"] == 8 and d["dropped"] == 70
    goals = {g["goal"]: g["met"] for g in incast.goals(setup, a)}
    assert goals == {"trimming: 0 timeouts": True,
                     "trimming: completion <= 1.2 x ideal": True,
                     "drop-tail shows timeouts": True}
    # a trimming sender's timeout that the late original showed spurious is not a loss
    trim[0].sender.counters.timeouts = trim[0].sender.counters.timeouts_spurious = 1
    a = incast.analyse(setup, raw)
    goals = {g["goal"]: (g["met"], g["measured"]) for g in incast.goals(setup, a)}
    assert goals["trimming: 0 timeouts"] == (True, "N=4: 0 (+1 spurious)")
    trim[1].sender.counters.timeouts = 1  # a real one
    a = incast.analyse(setup, raw)
    assert not {g["goal"]: g["met"] for g in incast.goals(setup, a)}["trimming: 0 timeouts"]


def _failure_raw(mode_flows: dict, reroute_at: float) -> dict:
    modes = {}
    for mode, flows in mode_flows.items():
        rewrite = Reconvergence(
            link="a7:3-c1:4", status="down", detected_at=T0 + reroute_at - 0.01,
            programmed_at=T0 + reroute_at, detect_s=0.1, total_s=0.11, from_command_s=None,
            switches=4, updates=8)
        other = replace(rewrite, link="a7:4-c2:4", programmed_at=T0 + 0.5)  # another link's
        modes[mode] = PhaseWithEvents(run(flows), FailureEvents(
            link=("c1", "a7"), failed_at=1.0, restored_at=3.0, reconvergence=[other, rewrite]))
    return {"modes": modes}


def test_failure_recovery_ev_before_controller_and_ecmp_after():
    setup = failure.setup(Options("failure", quick=True))
    ecmp = [flow("h1", "h13", RATE, 4.0, stall=(1.0, 1.6)), flow("h2", "h14", RATE, 4.0)]
    ev = [flow("h1", "h13", RATE, 4.0, stall=(1.0, 1.1), retirements=(1.04, 1.05)),
          flow("h2", "h14", RATE, 4.0, retirements=(1.03,))]
    a = failure.analyse(setup, _failure_raw({"ecmp": ecmp, "ev": ev}, reroute_at=1.5))
    assert a["modes"]["ecmp"]["recovery_s"] == pytest.approx(0.6)
    assert a["modes"]["ev"]["recovery_s"] == pytest.approx(0.1)
    assert a["modes"]["ev"]["reroute_after_s"] == pytest.approx(0.5)
    assert a["modes"]["ev"]["first_retirement_s"] == pytest.approx(1.03)
    assert all(g["met"] for g in failure.goals(setup, a))
    rows = failure.tables(a)["goodput_bins"]
    assert rows[0]["mode"] == "ecmp" and rows[25]["flow0_bps"] == 0


def test_failure_goal_fails_when_ev_waits_for_the_controller():
    setup = failure.setup(Options("failure", quick=True))
    stalled = [flow("h1", "h13", RATE, 4.0, stall=(1.0, 1.6))]
    a = failure.analyse(setup, _failure_raw({"ecmp": stalled, "ev": stalled}, 1.5))
    assert not any(g["met"] for g in failure.goals(setup, a))


def test_signals_fairness_over_the_shared_window():
    setup = signals.setup(Options("signals", quick=True))
    flows = [flow("h1", "h16", RATE / 3, 6.0, start=0.0), flow("h5", "h16", RATE / 3, 5.0,
                                                               start=1.0),
             flow("h9", "h16", RATE / 3, 4.0, start=2.0)]
    a = signals.analyse(setup, {"run": run(flows), "starts": [0.0, 1.0, 2.0]})
    assert a["jain"] == pytest.approx(1.0)
    assert a["shared_total"] == pytest.approx(1.0, rel=0.02)


def test_a_run_in_which_every_transfer_failed_is_no_result():
    ok = flow("h1", "h9", RATE, 1.0)
    bad = failed("h2", "h10", "AttributeError: x")
    assert flowstats.nothing_transferred([ok, bad]) is None
    assert flowstats.nothing_transferred([bad, bad]) == \
        "all 2 transfers failed (h2: AttributeError: x)"


def test_a_rate_auto_trial_passes_only_when_faithful_complete_and_the_links_filled():
    ok = verdict()
    assert trial_failures(ok, True, MIN_FILL + 0.05) == []
    assert trial_failures(ok, True, 0.67) == ["flows filled 67% of the link rate (< 75%)"]
    assert trial_failures(ok, False, 0.9) == ["a flow did not complete"]
    cpu = replace(verdict(False), reasons=["CPU 98% busy (limit 97%)"])
    assert trial_failures(cpu, True, 0.9) == ["CPU 98% busy (limit 97%)"]


class CalibrationSession:
    """A session whose flows fill 90 % of the links at 6 Mb/s and below, half above; it
    records the rate each phase ran at and the setup it was judged by."""

    def __init__(self, setup) -> None:
        self.setup, self.rate, self.phases = setup, None, []
        self.fabric = parse_spec(setup.spec)

    def set_spray(self, mode: str) -> None:
        assert mode == "ev"

    def run_at(self, setup) -> None:
        self.setup, self.rate = setup, setup.rate_bps

    def run_flows(self, name: str, plan, timeout: float):
        self.phases.append((self.rate, self.setup.rate_bps))
        fill = 0.9 if self.rate <= 6_000_000 else 0.5
        return run([flow(f"h{i}", f"h{i + 8}", fill * self.rate, 3.0) for i in range(4)])


def test_rate_auto_runs_and_judges_each_trial_at_its_own_rate():
    module, setup = runner.plan(Options("permutation", quick=True, rate="auto",
                                        target="p4emu"))
    session = CalibrationSession(setup)
    chosen = runner.calibrate(session, module, setup, Progress("permutation", [], write=lambda line: None))
    assert chosen["chosen_bps"] == 6_000_000
    # the pacing and the late-ACK bound of a trial are its rate's (they were the
    # session's first rate: every ACK of a slower trial looked late)
    assert session.phases == [(r, r) for r in (16_000_000, 12_000_000, 8_000_000,
                                                 6_000_000)]
    assert [t["faithful"] for t in chosen["trials"]] == [False, False, False, True]


def test_rate_auto_says_why_every_rate_failed():
    module, setup = runner.plan(Options("permutation", quick=True, rate="auto",
                                        target="p4emu"))
    session = CalibrationSession(setup)
    session.run_flows = lambda name, plan, timeout: run([])  # nothing filled the links
    with pytest.raises(ExperimentError) as err:
        runner.calibrate(session, module, setup, Progress("permutation", [], write=lambda line: None))
    message = str(err.value)
    assert "no rate down to 0.5 Mb/s" in message
    assert "16 Mb/s: flows filled 0% of the link rate" in message
    assert "\n" not in message


@pytest.mark.parametrize("after, met", [(2.7, True), (2.4, False)])
def test_planes_judges_the_surviving_capacity_of_any_number_of_planes(after, met):
    setup = planes.setup(Options("planes", quick=True,
                                 spec="multiplane:planes=4,base=fattree:k=4"))
    cases = {"1 plane": 1.0, "all planes": 3.6, "all planes, 1 failed": after}
    rate, seconds = setup.link_rate, setup.params["seconds"]
    raw = {"cases": {case: PhaseWithEvents(run([flow("h1", "h13", share * rate, seconds),
                                                flow("h2", "h14", share * rate, seconds)]))
                     for case, share in cases.items()}}
    a = planes.analyse(setup, raw)
    assert a["planes"] == 4
    assert a["cases"]["all planes, 1 failed"]["after_failure"]["mean"] == pytest.approx(after)
    judged = {g["goal"].split(",")[0]: g["met"] for g in planes.goals(setup, a)}
    assert judged["(lab's own) 4 planes carry >= 3x what 1 plane does"]  # 3.6x
    assert judged["with 1 of 4 planes failed"] is met  # 0.85 x 3 = 2.55
