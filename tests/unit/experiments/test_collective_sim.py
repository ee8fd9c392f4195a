"""The collective experiment on the simulator: a training job's iterations run as the
endpoint's transfers (small sizes, k=4), its barrier, bandwidths, scenarios, records,
outputs and one-line errors."""

from __future__ import annotations

import json
import random

import pytest

from mrclab.cli import main
from mrclab.endpoint.clock import EventLoop
from mrclab.experiments import collective
from mrclab.experiments.collective_plan import IterationAction, JobPlan
from mrclab.experiments.config import Options
from mrclab.experiments.sim_engine.session import SimSession
from mrclab.experiments.sweep import grid
from mrclab.fabric.collective import build_schedule
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.training_job import JobSpec
from mrclab.sim.links import NicQueue, Wire


def _run(tmp_path, **options):
    """The experiment's `run` and `analyse` on a session of its own (8 ranks, 128 KiB)."""
    opts = Options(name="collective", engine="sim", quick=True,
                   **{"ranks": 8, "size": "128K", "iterations": 3, **options})
    setup = collective.setup(opts)
    session = SimSession(parse_spec(setup.spec), setup, tmp_path, progress=lambda _m: None)
    raw = collective.run(session, setup)
    return setup, raw, collective.analyse(setup, raw)


def test_iterations_end_at_a_barrier_below_the_ideal_bandwidth(tmp_path):
    setup, raw, analysis = _run(tmp_path, scenarios=("baseline",), modes=("ev",))
    job = raw["phases"]["ev"]["job"]
    records = [c.iteration for c in job.iterations]
    assert len(records) == 3 and all(r.end is not None for r in records)
    for before, after in zip(records, records[1:], strict=False):
        assert after.start == before.end  # the next compute begins at the barrier
    for r in records:
        assert r.end == max(r.finish)
        assert r.comm_s >= raw["ideal_s"]
    a = analysis["phases"]["ev"]
    assert a["lost"] == 0 and a["never_ended"] == 0
    assert 0 < a["busbw_p50_share"] <= 1
    assert max(a["finish_shares"]) == pytest.approx(1.0)
    assert all(0 < f <= 1 for f in a["finish_shares"])
    # every message was one endpoint transfer: 8 ranks x 14 ring steps x 1 slice
    assert all(c.totals.transfers == 8 * 14 for c in job.iterations)


def test_a_straggler_sets_the_step_time_and_the_report_says_so(tmp_path):
    setup, raw, analysis = _run(tmp_path, scenarios=("straggler",), modes=("ev",),
                                straggler="3:2")
    a = analysis["phases"]["ev straggler"]
    assert a["straggler"]["rank"] == 3 and a["straggler"]["last_in"] == 3
    for row in a["iterations"]:
        assert row["compute_s"] == pytest.approx(2 * raw["compute_s"])
        assert row["step_s"] == pytest.approx(row["compute_s"] + row["comm_s"])
    (goal,) = [g for g in collective.goals(setup, analysis) if "straggler" in g["goal"]]
    assert goal["met"] and "rank 3" in goal["measured"] and "3/3" in goal["measured"]


@pytest.mark.parametrize("scenario,mode", [("link-gray", "ev"), ("link-admin", "ecmp")])
def test_a_core_link_failing_mid_job_loses_no_transfer(tmp_path, scenario, mode):
    setup, raw, analysis = _run(tmp_path, scenarios=(scenario,), modes=(mode,))
    a = analysis["phases"][f"{mode} {scenario}"]
    assert a["ended"] == 3 and a["lost"] == 0 and not a["stalled"]
    failure = a["failures"]
    assert failure["iteration"] == setup.params["fail_iteration"] == 1
    (at, what), = failure["events"]
    assert "fails" in what and at > a["iterations"][1]["compute_s"]  # mid-collective
    assert failure["cost"] is not None
    # against the next iteration, on the fabric the failure left
    assert failure["next_comm_s"] == a["iterations"][2]["comm_s"]
    assert failure["cost_vs_next"] == pytest.approx(
        a["iterations"][1]["comm_s"] / a["iterations"][2]["comm_s"] - 1)
    (goal,) = [g for g in collective.goals(setup, analysis) if scenario in g["goal"]] \
        if mode == "ev" else [None]
    assert goal is None or "on the fabric it left" in goal["measured"]


def test_a_failure_costs_against_the_same_iteration_undisturbed(tmp_path):
    # the baseline phase is the failing phase's twin: one run until the failure
    setup, _, analysis = _run(tmp_path, scenarios=("baseline", "link-gray"), modes=("ev",))
    base, hit = analysis["phases"]["ev"]["iterations"], analysis["phases"]["ev link-gray"]
    assert hit["iterations"][0]["comm_s"] == base[0]["comm_s"]
    failure = hit["failures"]
    assert failure["undisturbed_comm_s"] == base[1]["comm_s"] != failure["comm_s"]
    assert failure["cost"] == pytest.approx(failure["comm_s"] / base[1]["comm_s"] - 1)
    assert failure["cost_vs_before"] == pytest.approx(
        failure["comm_s"] / hit["iterations"][0]["comm_s"] - 1)
    (goal,) = [g for g in collective.goals(setup, analysis) if "link-gray" in g["goal"]]
    assert "undisturbed (the baseline's iteration 1" in goal["measured"]
    assert goal["met"] == (failure["cost"] <= 0.02)


def test_a_flapping_link_and_the_other_patterns_complete(tmp_path):
    _, _, flap = _run(tmp_path, scenarios=("flap",), modes=("ev",), iterations=5,
                      flap_every=1)
    a = flap["phases"]["ev flap"]
    events = [e[1] for row in a["iterations"] for e in row["events"]]
    assert [w.split()[-1] for w in events] == ["(gray)", "back", "(gray)", "back"]
    assert a["ended"] == 5 and a["lost"] == 0
    for pattern in ("halving-doubling", "alltoall"):
        _, _, other = _run(tmp_path, scenarios=("baseline",), modes=("ev",),
                           pattern=pattern, iterations=1)
        assert other["phases"]["ev"]["ended"] == 1
        assert other["phases"]["ev"]["lost"] == 0


def test_the_window_bounds_the_messages_a_rank_has_in_flight(tmp_path):
    # an alltoall of one message per peer: one at a time waits a round trip per message
    comm = {}
    for window in (1, 8):
        setup, _, a = _run(tmp_path, scenarios=("baseline",), modes=("ev",),
                           pattern="alltoall", iterations=1, window=window)
        assert setup.params["window"] == window
        comm[window] = a["phases"]["ev"]["iterations"][0]["comm_s"]
    assert comm[1] > 1.5 * comm[8], comm


def test_one_seed_gives_the_same_job(tmp_path):
    first = _run(tmp_path, scenarios=("baseline",), modes=("ecmp",), iterations=2)[2]
    again = _run(tmp_path, scenarios=("baseline",), modes=("ecmp",), iterations=2)[2]
    assert [r["step_s"] for r in first["phases"]["ecmp"]["iterations"]] == \
        [r["step_s"] for r in again["phases"]["ecmp"]["iterations"]]


def test_ctrl_c_keeps_the_iterations_done(tmp_path):
    setup = collective.setup(Options(name="collective", engine="sim", quick=True, ranks=4,
                                     size="64K"))
    session = SimSession(parse_spec(setup.spec), setup, tmp_path, progress=lambda _m: None)
    hosts = tuple(collective.rank_hosts(setup, session.fabric))

    def interrupt() -> str:
        raise KeyboardInterrupt

    plan = JobPlan(hosts, build_schedule("ring-allreduce", 4, 64 << 10, 16 << 10),
                   JobSpec(iterations=3, compute_s=10e-6), 10e-6,
                   (IterationAction(1, 0.5, interrupt),), timeout_s=0.1)
    record = session.run_job("ev", plan)
    assert record.incomplete and session.interrupted
    assert record.iterations[0].iteration.end is not None
    assert record.iterations[1].iteration.end is None
    assert session.run_job("ev", plan).incomplete  # later phases do not run


def test_the_command_writes_the_report_tables_and_plots(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["sim", "collective", "--quick", "--ranks", "4", "--size", "64K",
                 "--iterations", "2", "--scenarios", "baseline", "--modes", "ecmp,ev",
                 "--out", str(out)]) == 0
    for name in ("report.md", "results.json", "summary.csv", "iterations.csv",
                 "step_time.png", "busbw.png", "waiting.png", "rank_finish.png"):
        assert (out / name).exists(), name
    results = json.loads((out / "results.json").read_text())
    assert list(results["raw"]["phases"]) == ["ecmp", "ev"]
    assert results["raw"]["phases"]["ev"]["job"]["iterations"][1]["index"] == 1
    report = (out / "report.md").read_text()
    assert "every iteration ends, 0 lost transfers" in report
    assert "collective: virtual time" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["--ranks", "17"], "17 ranks: fattree:k=4 has 16 hosts"),
    (["--size", "0"], "size 0 bytes: nothing to move"),
    (["--pattern", "ring"], "unknown pattern 'ring'"),
    (["--pattern", "halving-doubling", "--ranks", "12"], "halving-doubling needs a power"),
    (["--scenarios", "plane"], "scenario plane: the fabric has one plane"),
    (["--straggler", "x:y"], "bad --straggler 'x:y'"),
    (["--size", "lots"], "bad --size 'lots'"),
    (["--window", "0"], "bad job: window 0: at least 1"),
])
def test_bad_input_is_one_line_naming_it(argv, words, capsys, tmp_path):
    assert main(["sim", "collective", *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err


def test_other_experiments_refuse_the_job_options(capsys, tmp_path):
    assert main(["sim", "permutation", "--pattern", "alltoall", "--out", str(tmp_path)]) == 2
    assert "--pattern: permutation does not take it" in capsys.readouterr().err


def test_a_sweep_varies_patterns_sizes_and_scenarios():
    from mrclab.experiments import runner

    base = Options(name="collective", engine="sim", quick=True)
    params = [grid.parse_param("pattern=ring-allreduce,alltoall"),
              grid.parse_param("size=64K,256K"),
              grid.parse_param("scenarios=baseline/link-gray,straggler")]
    points = grid.expand(base, [1, 2], params, "test")
    assert len(points) == 16
    assert points[0].options.scenarios == ("baseline",)
    for point in points:
        _, setup = runner.plan(point.options)
        assert setup.params["pattern"] == point.varied["pattern"]


def test_a_nic_serves_its_connections_in_turn_and_one_connection_in_order():
    loop = EventLoop()
    got = []
    wire = Wire(loop, 100e9, 0.0, 0.0, random.Random(1),
                lambda _port, frame: got.append(frame), 1)
    nic = NicQueue(loop, wire)
    for frame in (b"a1", b"a2", b"a3"):
        nic.send(frame * 100, flow="h2")
    for frame in (b"b1", b"b2"):
        nic.send(frame * 100, flow="h3")
    loop.run(1e-3)
    # a1 left at once; then h2's queue (a2, a3) and h3's (b1, b2) take turns
    assert [f[:2] for f in got] == [b"a1", b"a2", b"b1", b"a3", b"b2"]
