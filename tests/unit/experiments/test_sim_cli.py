"""`mrclab sim NAME`: the short form of `mrclab experiment NAME --engine sim`, with the
fabric options both engines take; one-line errors naming bad input."""

import json
import signal
import subprocess
import sys
import time

import pytest

from mrclab.cli import main


def test_the_short_form_runs_the_experiment_on_the_simulator(tmp_path, capsys):
    out = tmp_path / "incast"
    assert main(["sim", "incast", "--quick", "--senders", "4", "--modes", "trim",
                 "--queue-depth", "32", "--trim", "12", "--ecn", "6", "--delay", "500ns",
                 "--rate", "400G", "--out", str(out)]) == 0
    r = json.loads((out / "results.json").read_text())
    s = r["setup"]
    assert (s["engine"], s["rate_bps"], s["queue_depth"], s["trim_threshold"],
            s["ecn_threshold"]) == ("sim", 400e9, 32, 12, 6)
    assert s["link_delay_s"] == pytest.approx(5e-7)
    assert [row["mode"] for row in r["analysis"]["rows"]] == ["trim"]
    assert "incast: virtual time" in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["sim", "permutation", "--spec", "fattree:k=3"], "--spec 'fattree:k=3'"),
    (["sim", "permutation", "--modes", "warp"], "--modes 'warp': permutation's modes are"),
    (["sim", "signals", "--modes", "ev"], "--modes: signals has no modes to choose from"),
    (["sim", "incast", "--rate", "0"], "rate 0 Mb/s is outside what sim emulates"),
    (["sim", "incast", "--delay", "5parsecs"], "bad delay '5parsecs'"),
    (["sim", "incast", "--queue-depth", "0"], "--queue-depth 0: must be >= 1"),
    (["experiment", "incast", "--delay", "1us"], "--delay applies to the simulator"),
    (["sim", "incast", "--duration", "1ms"], "--duration: incast has no flow length"),
    (["sim", "permutation", "--duration", "2 weeks"], "bad --duration '2 weeks'"),
    (["sim", "permutation", "--duration", "200us"], "--duration 200us: the flows must run"),
])
def test_bad_input_is_one_line_naming_it(argv, words, capsys, tmp_path):
    status = main([*argv, "--out", str(tmp_path)])
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err


def test_sigterm_stops_a_simulation_with_a_partial_report(tmp_path):
    """A run in the background (where the shell ignores SIGINT for it) is stopped with
    SIGTERM: the phase running ends there, the report is written and says so."""
    out = tmp_path / "failover"
    proc = subprocess.Popen([sys.executable, "-m", "mrclab", "sim", "failover", "--quick",
                             "--out", str(out)], stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        for line in proc.stderr:  # the first phase is running (the whole run takes minutes)
            if "failover: ev: virtual" in line:
                break
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rest = proc.stderr.read()
        assert proc.wait(timeout=120) == 0, rest
    finally:
        proc.kill()
    assert time.monotonic() - started < 60
    r = json.loads((out / "results.json").read_text())
    assert r["environment"]["incomplete"] == ("interrupted (SIGTERM): the phases after it "
                                              "did not run")
    modes = r["analysis"]["modes"]
    assert modes["ev"]["end_s"] < r["setup"]["params"]["seconds"]  # cut short in virtual time
    assert "interrupted (SIGTERM)" in (out / "report.md").read_text()
