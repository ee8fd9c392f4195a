"""From a (synthetic) raw run to the files a user gets: results.json, CSVs, PNGs, report."""

from __future__ import annotations

import csv
import json
from dataclasses import replace

from mrclab.experiments import failure, runner
from mrclab.experiments.config import Options

from .synthetic import flow, verdict
from .test_analysis import RATE, _failure_raw

ENV = {"versions": {"python": "3.11"}, "queue_model": "p4emu: bits/s", "machine": "2 CPUs",
       "load_start": [1.0, 1.0, 1.0], "duration_s": 42.0}


def test_finish_writes_every_output_and_the_report_embeds_the_plots(tmp_path):
    setup = failure.setup(Options("failure", quick=True, seed=5))
    setup.rate_bps = RATE
    raw = _failure_raw({"ecmp": [flow("h1", "h13", RATE, 4.0, stall=(1.0, 1.6))],
                        "ev": [flow("h1", "h13", RATE, 4.0, retirements=(1.02,))]}, 1.5)
    summary = runner.finish(failure, setup, ENV, raw, None, tmp_path)
    names = {p.name for p in tmp_path.iterdir()}
    assert {"results.json", "report.md", "summary.csv", "flows.csv", "goodput_bins.csv",
            "timeline_ecmp.png", "timeline_ev.png"} <= names
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["setup"]["seed"] == 5 and results["raw"]["modes"]["ev"]["flows"]
    assert results["verdict"]["faithful"] is True
    report = (tmp_path / "report.md").read_text()
    assert "![Failure, ecmp: goodput per flow](timeline_ecmp.png)" in report
    assert "| seed | 5 |" in report and "1 Mb/s" in report and "load average" in report
    assert "ev recovers before ecmp" in report
    rows = list(csv.DictReader(open(tmp_path / "summary.csv")))
    assert [r["mode"] for r in rows] == ["ecmp", "ev"]
    assert summary["goals"] and all(g["met"] for g in summary["goals"])


def test_an_unfaithful_phase_marks_the_whole_report(tmp_path):
    setup = failure.setup(Options("failure", quick=True))
    raw = _failure_raw({"ecmp": [flow("h1", "h13", RATE, 4.0)],
                        "ev": [flow("h1", "h13", RATE, 4.0)]}, 1.5)
    raw["modes"]["ev"].phase.verdict = verdict(faithful=False)
    runner.finish(failure, setup, ENV, raw, None, tmp_path)
    report = (tmp_path / "report.md").read_text()
    assert "unfaithful: the machine did not keep up" in report and "- CPU 99% busy" in report


def test_a_verdict_without_the_switches_own_figures_says_so(tmp_path):
    setup = failure.setup(Options("failure", quick=True))
    raw = _failure_raw({"ecmp": [flow("h1", "h13", RATE, 4.0)],
                        "ev": [flow("h1", "h13", RATE, 4.0)]}, 1.5)
    for mode in raw["modes"].values():  # BMv2: no socket backlog, no missed-frame count
        mode.phase.verdict = replace(verdict(), backlog_p95_bytes=None,
                                     ingress_loss_share=None, late_share=0.002)
    runner.finish(failure, setup, ENV, raw, None, tmp_path)
    report = (tmp_path / "report.md").read_text()
    assert "faithful as far as measured (the CPU and the ACKs' delays" in report
    assert "ACKs later than the queues explain 0.20%" in report
