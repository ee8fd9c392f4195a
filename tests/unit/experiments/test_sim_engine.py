"""Experiments on the simulator (`--engine sim`): the lab's reports from virtual time, the
same figures for the same seed, one-line errors for what the simulator cannot run."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mrclab.experiments import runner
from mrclab.experiments.config import ExperimentError, Options, simulator_defaults
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.sim_engine.session import SimSession
from mrclab.fabric.spec import parse_spec
from tests.paths import REPO_ROOT


def _incast(out: Path, seed: int = 1) -> dict:
    return runner.run(Options("incast", quick=True, engine="sim", incast_n=(4,), seed=seed),
                      out)


def test_incast_on_the_simulator_writes_the_lab_s_report(tmp_path):
    summary = _incast(tmp_path)
    for name in ("results.json", "report.md", "summary.csv"):
        assert (tmp_path / name).is_file(), name
    report = (tmp_path / "report.md").read_text()
    assert "**Engine:** the simulator, in virtual time" in report
    assert "| engine | simulator" in report and "100 Gb/s" in report
    assert "packet-hops" in report  # the run's cost, per wall-clock second
    rows = {r["mode"]: r for r in summary["analysis"]["rows"]}
    # the P4 program trims at the receiver's port: NACKs, and nothing dropped or timed out
    assert rows["trim"]["trimmed_at_receiver"] > 0 and rows["trim"]["dropped"] == 0
    assert rows["trim"]["timeouts"] == 0 and rows["trim"]["failed"] == 0
    # drop-tail (trim threshold 0) loses packets at the same port instead
    assert rows["droptail"]["dropped"] > 0 and rows["droptail"]["trimmed_at_receiver"] == 0
    # microseconds survive the tables (4 significant figures, not 4 decimals)
    csv = (tmp_path / "summary.csv").read_text()
    assert "5e-05" in csv
    assert summary["verdict"].faithful and summary["verdict"].engine == "sim"


def test_the_same_seed_gives_the_same_results(tmp_path):
    def figures(out: Path) -> str:
        _incast(out)
        r = json.loads((out / "results.json").read_text())
        for run in r["raw"]["runs"]:
            run.pop("machine")  # wall-clock time
        return json.dumps({"analysis": r["analysis"], "raw": r["raw"]}, sort_keys=True)
    assert figures(tmp_path / "a") == figures(tmp_path / "b")
    _incast(tmp_path / "c", seed=2)
    other = json.loads((tmp_path / "c" / "results.json").read_text())
    first = json.loads((tmp_path / "a" / "results.json").read_text())
    assert other["analysis"] != first["analysis"]


def test_flows_are_recorded_as_the_lab_records_them():
    from mrclab.experiments.config import Setup, simulator_defaults

    fabric = parse_spec("fattree:k=4")
    setup = Setup(experiment="t", target="p4emu", spec="fattree:k=4", seed=1, quick=True,
                  **simulator_defaults())
    session = SimSession(fabric, setup, Path("/nonexistent"), lambda name: None)
    session.set_spray("source")
    run = session.run_flows("two", [Flow("h1", "h16", 200_000, seed=1),
                                    Flow("h2", "h9", 100_000, seed=2, start=5e-6)], timeout=1)
    assert [f.ok for f in run.flows] == [True, True]
    later = run.flows[1]
    # virtual seconds from 0, at ns resolution; the later flow started at its `start`
    assert later.timeline.sender_start == pytest.approx(5e-6)
    assert later.timeline.samples[-1][1] == 100_000  # all acknowledged
    assert 0 < later.sender.completion_time_s < 1e-3
    # source spraying: the session gave each sender its routes, so no EV was hashed
    assert len(run.flows[0].sender.pool.evs_used) >= 4
    tx = sum(p.tx_bytes for ports in run.counters.values() for p in ports.values())
    assert tx > 300_000 * 3  # both transfers crossed at least three switches
    assert session.reconvergence() == []  # nothing failed


def test_what_the_simulator_cannot_run_is_a_one_line_error(tmp_path):
    # every experiment runs on both engines, each with the simulator's own figures
    for name in ("permutation", "incast", "failure", "planes", "signals"):
        _, setup = runner.plan(Options(name, engine="sim", quick=True))
        assert setup.engine == "sim" and setup.rate_bps == 100e9, name
    with pytest.raises(ExperimentError, match="--rate auto"):
        runner.plan(Options("permutation", engine="sim", rate="auto"))
    with pytest.raises(ExperimentError, match="--target bmv2: the simulator's switches"):
        runner.plan(Options("permutation", engine="sim", target="bmv2"))
    with pytest.raises(ExperimentError, match="outside what sim emulates"):
        runner.plan(Options("permutation", engine="sim", rate="900G"))
    _, setup = runner.plan(Options("permutation", engine="sim", rate="400G", quick=True))
    assert setup.rate_bps == 400e9 and setup.engine == "sim"
    fabric = parse_spec("fattree:k=4")
    session = SimSession(fabric, setup, tmp_path, lambda name: None)
    with pytest.raises(ExperimentError, match=r"h1->h2: send_args: unknown '--bogus'"):
        session.run_flows("x", [Flow("h1", "h2", 1000, seed=1, send_args=("--bogus",))], 1)
    proc = subprocess.run([sys.executable, "-m", "mrclab", "experiment", "signals", "--engine",
                           "sim", "--delay", "1parsec", "--out", str(tmp_path / "p")],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "mrclab experiment: bad delay '1parsec': expected e.g. 1us, 500ns or 0.5ms"]


def test_a_scheduled_failure_happens_in_virtual_time_and_the_controller_reacts():
    from mrclab.experiments.config import Setup, simulator_defaults

    fabric = parse_spec("fattree:k=4")
    setup = Setup(experiment="t", target="p4emu", spec="fattree:k=4", seed=1, quick=True,
                  **{**simulator_defaults(), "probe_interval": 20e-6})
    session = SimSession(fabric, setup, Path("/nonexistent"), lambda name: None)
    session.set_spray("ev")
    seen: dict = {}
    core, agg = "c1", next(n for n, sw in fabric.switches.items()
                             if sw.role == "agg" and sw.pod == 3
                             and any(p.node == "c1" for p in sw.ports.values()))

    def fail(t0: float) -> None:
        seen["before"] = session.counters([core])
        seen["failed_at"] = session.set_link(core, agg, up=False) - t0

    def restore(t0: float) -> None:
        seen["restored_at"] = session.set_link(core, agg, up=True) - t0
    # h1 (pod 0) to h16 (pod 3) sprays over every core; the link fails at 30 us
    run = session.run_flows("fail", [Flow("h1", "h16", 400_000, seed=1)], timeout=1,
                            schedule=[Timed(30e-6, fail), Timed(1.5e-3, restore)])
    assert seen["failed_at"] == pytest.approx(30e-6)
    assert seen["restored_at"] == pytest.approx(1.5e-3)  # the run lasted for the schedule
    assert run.flows[0].ok
    assert run.flows[0].sender.pool.evs_retired  # the sender noticed first
    # the controller's verdict came within a few probe rounds; its rewrite 1 ms later
    assert session.wait_reconvergence(2)  # down, then the link's return
    down, up = session.reconvergence()
    assert (down.status, up.status) == ("down", "up")
    assert 30e-6 < down.detected_at < 30e-6 + 6 * 20e-6
    assert down.program_s == pytest.approx(setup_write_delay())
    assert down.switches > 0 and down.updates > 0


def setup_write_delay() -> float:
    from mrclab.sim.network import SimSettings

    return SimSettings().write_delay_s


def test_ctrl_c_keeps_what_was_measured_and_skips_the_phases_after(tmp_path):
    from mrclab.experiments.config import Setup, simulator_defaults

    setup = Setup(experiment="t", target="p4emu", spec="fattree:k=4", seed=1, quick=True,
                  **simulator_defaults())
    session = SimSession(parse_spec("fattree:k=4"), setup, tmp_path, lambda name: None)

    def interrupt(t0: float) -> None:
        raise KeyboardInterrupt
    plan = [Flow("h1", "h16", 2_000_000, seed=1)]
    cut = session.run_flows("cut", plan, timeout=1, schedule=[Timed(20e-6, interrupt)])
    assert cut.incomplete and session.interrupted
    assert cut.end == pytest.approx(20e-6, abs=2e-6)  # stopped where Ctrl-C came
    record = cut.flows[0]
    assert not record.ok and record.timeline.samples  # kept so far
    later = session.run_flows("next", plan, timeout=1)
    assert later.incomplete
    assert later.flows[0].sender.error == "not run (interrupted)"


def test_the_lab_s_figures_run_on_the_simulator_with_the_lab_s_senders():
    _, lab = runner.plan(Options("incast", quick=True))
    _, sim = runner.plan(Options("incast", quick=True, engine="sim", figures="lab",
                                 incast_n=(4,)))
    assert (sim.engine, sim.figures) == ("sim", "lab")
    for name in ("rate_bps", "mtu", "queue_depth", "trim_threshold", "ecn_threshold",
                 "link_delay_s"):
        assert getattr(sim, name) == getattr(lab, name), name
    session = SimSession(parse_spec(sim.spec), sim, Path("/nonexistent"), lambda name: None)
    session.set_spray("ev")
    run = session.run_flows("one", [Flow("h1", "h16", 30_000, seed=1)], timeout=30)
    sender = run.flows[0].sender
    assert sender.ok
    # the lab agent's first window and RTO floor, not a datacenter BDP and microseconds
    assert (sender.config.init_cwnd, sender.config.min_rto_ms) == (16, 100)
    own = SimSession(parse_spec(sim.spec), replace(sim, figures="own", **simulator_defaults()),
                     Path("/nonexistent"), lambda name: None)
    own.set_spray("ev")
    theirs = own.run_flows("one", [Flow("h1", "h16", 30_000, seed=1)], timeout=1)
    assert theirs.flows[0].sender.config.min_rto_ms < 1
    with pytest.raises(ExperimentError, match="--figures lab applies to the simulator"):
        runner.plan(Options("incast", figures="lab"))


def test_the_simulator_s_datacenter_senders_skip_slow_start_and_use_dctcp_s_gain():
    _, own = runner.plan(Options("incast", quick=True, engine="sim", incast_n=(4,)))
    _, lab = runner.plan(Options("incast", quick=True, engine="sim", figures="lab",
                                 incast_n=(4,)))
    windows = []
    for setup in (own, lab):
        session = SimSession(parse_spec(setup.spec), setup, Path("/nonexistent"),
                             lambda name: None)
        session.set_spray("source")
        session.run_flows("one", [Flow("h1", "h16", 30_000, seed=1)], timeout=30)
        cfg = session._net.flows[0].sender.cfg
        windows.append((cfg.dctcp_gain, cfg.init_ssthresh == cfg.init_cwnd,
                        cfg.dctcp_init_alpha, cfg.window_follows_planes))
    # and they size the window to the planes in use
    assert windows == [(1 / 8, True, 0.0, True), (None, False, None, False)]


def test_the_simulated_permutation_marks_above_dctcp_s_threshold_for_its_bdp():
    from mrclab.experiments import permutation

    setup = permutation.setup(Options("permutation", quick=True, engine="sim"))
    # a BDP of ~44 packets at 100 Gb/s: K at about half of it (DCTCP's K > BDP / 7 is not
    # enough for sprayed windows), trimming above K, a queue of about a BDP
    assert (setup.ecn_threshold, setup.trim_threshold, setup.queue_depth) == (24, 32, 48)
    _, own = runner.plan(Options("permutation", quick=True, engine="sim", ecn=4))
    assert own.ecn_threshold == 4  # the options still say otherwise
    _, lab = runner.plan(Options("permutation", quick=True, engine="sim", figures="lab"))
    assert (lab.ecn_threshold, lab.queue_depth) == (8, 64)  # the lab's own
