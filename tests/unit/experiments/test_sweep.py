"""`mrclab sweep`: the grid, the aggregate, Dask (a local cluster, and a real scheduler with
workers that die), resuming, and one-line errors for bad input."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mrclab.cli import main
from mrclab.experiments.config import ExperimentError, Options
from mrclab.experiments.sweep import grid
from mrclab.experiments.sweep.aggregate import SweepRecord, aggregate, summarise, t975
from tests.paths import REPO_ROOT

# a tiny run: 4 senders, trimming only, 50 us of the receiver's link (~1 s on the simulator)
TINY = ["incast", "--quick", "--senders", "4", "--modes", "trim"]


def test_the_grid_is_every_combination_for_every_seed():
    params = [grid.parse_param("trim=4,8"), grid.parse_param("rate=100G,400G")]
    points = grid.expand(Options("incast", engine="sim"), grid.parse_seeds("1-2,5"), params,
                         "v1")
    assert len(points) == 2 * 2 * 3 and len({p.key for p in points}) == 12
    first = points[0]
    assert (first.options.trim, first.options.rate, first.options.seed) == (4, "100G", 1)
    assert first.config == {"trim": 4, "rate": "100G"}
    # the same options and code find the same key; other code does not
    again = grid.expand(Options("incast", engine="sim"), [1, 2, 5], params, "v1")
    assert [p.key for p in again] == [p.key for p in points]
    assert grid.expand(Options("incast", engine="sim"), [1], params, "v2")[0].key != first.key
    modes = grid.expand(Options("permutation"), [1], [grid.parse_param("modes=ecmp,ev/ev")],
                        "v")
    assert [p.options.modes for p in modes] == [("ecmp", "ev"), ("ev",)]


def test_intervals_follow_student_t():
    s = summarise([0.80, 0.90, 1.00])
    assert s["n"] == 3 and s["mean"] == pytest.approx(0.9) and s["std"] == pytest.approx(0.1)
    assert s["ci95"] == pytest.approx(4.303 * 0.1 / 3 ** 0.5)
    assert summarise([0.5])["ci95"] is None and t975(200) == 1.96
    def record(trim: int, faithful: bool | None, figures: dict, error: str | None = None):
        return SweepRecord("k", {"trim": trim}, 1, faithful=faithful, figures=figures,
                           error=error)
    runs = [record(4, True, {"x": 1.0}), record(4, True, {"x": 3.0}),
            record(4, False, {"x": 100.0}),  # left out
            record(4, None, {}, "boom"), record(8, True, {"x": 5.0})]
    rows = {r["trim"]: r for r in aggregate(runs)}
    assert (rows[4]["n"], rows[4]["mean"]) == (2, 2.0) and rows[8]["n"] == 1


@pytest.mark.parametrize("argv, words", [
    (["--param", "warp=1,2"], "--param 'warp=1,2': expected NAME=V1,V2"),
    (["--param", "trim="], "--param 'trim=': no value"),
    (["--param", "trim=a,b"], "trim takes int values"),
    (["--seeds", "5-1"], "--seeds '5-1': empty range"),
    (["--param", "rate=100G,9T"], "bad rate '9T'"),
    (["--scheduler", "localhost"], "--scheduler 'localhost': expected tcp://HOST:PORT"),
])
def test_bad_input_is_one_line_naming_it(argv, words, tmp_path, capsys):
    assert main(["sweep", *TINY, *argv, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1, err


def test_an_unreachable_scheduler_is_reported_within_seconds(tmp_path, capsys):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    assert main(["sweep", *TINY, "--seeds", "1", "--scheduler", f"tcp://127.0.0.1:{port}",
                 "--out", str(tmp_path)]) == 2
    assert time.monotonic() - started < 20
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"mrclab sweep: --scheduler tcp://127.0.0.1:{port}: cannot "
                              "connect within 5 s")


def test_a_local_sweep_runs_every_point_once_aggregates_them_and_resumes(tmp_path, capsys):
    out = tmp_path / "sweep"
    args = ["sweep", *TINY, "--seeds", "1-2", "--param", "trim=4,8", "--workers", "2",
            "--out", str(out)]
    assert main(args) == 0
    result = json.loads((out / "results.json").read_text())
    runs = result["runs"]
    assert sorted((r["trim"], r["seed"]) for r in runs) == [(4, 1), (4, 2), (8, 1), (8, 2)]
    assert result["counts"] == {"runs": 4, "failed": 0, "faithful": 4, "unfaithful": 0}
    # each run is an ordinary experiment run, in its own folder
    for r in runs:
        run_result = json.loads((out / "runs" / r["run"] / "results.json").read_text())
        assert run_result["setup"]["trim_threshold"] == r["trim"]
        assert run_result["setup"]["seed"] == r["seed"]
    # the aggregate is the mean of the runs' own figures
    name = "trim N=4 slowdown"
    for trim in (4, 8):
        mine = [r[name] for r in runs if r["trim"] == trim]
        row = next(a for a in result["aggregate"] if a["trim"] == trim and a["figure"] == name)
        assert row["n"] == 2 and row["mean"] == pytest.approx(sum(mine) / 2)
    assert "![slowdown: mean and 95 % interval over seeds](sweep_slowdown.png)" in \
        (out / "report.md").read_text()
    # resume: a run cut short (its record missing) runs again, the others do not
    records = {r["run"]: json.loads((out / "runs" / r["run"] / "sweep-run.json").read_text())
               for r in runs}
    gone = runs[1]["run"]
    (out / "runs" / gone / "sweep-run.json").unlink()
    capsys.readouterr()
    assert main(args) == 0
    assert "3 of 4 runs done already" in capsys.readouterr().err
    again = {r["run"]: json.loads((out / "runs" / r["run"] / "sweep-run.json").read_text())
             for r in runs}
    assert all(again[k] == records[k] for k in records if k != gone)
    assert again[gone]["pid"] != os.getpid() and not again[gone]["error"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args: str, log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(Path(sys.executable).parent / "dask"), *args],
                            stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)


def test_an_attached_cluster_survives_a_worker_dying_mid_sweep(tmp_path):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [_dask("scheduler", "--host", "127.0.0.1", "--port", str(port),
                   "--no-dashboard", log=tmp_path / "scheduler.log")]
    try:
        time.sleep(3)
        for i in range(2):  # no nanny: a killed worker stays dead
            procs.append(_dask("worker", address, "--nthreads", "1", "--no-nanny",
                               "--no-dashboard", "--host", "127.0.0.1",
                               log=tmp_path / f"worker{i}.log"))
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        out = tmp_path / "sweep"
        sweep = subprocess.Popen(
            [sys.executable, "-m", "mrclab", "sweep", *TINY, "--seeds", "1-8",
             "--scheduler", address, "--out", str(out)],
            cwd=REPO_ROOT, stderr=subprocess.PIPE, text=True)
        killed = False
        lines = []
        for line in sweep.stderr:
            lines.append(line)
            ran = [json.loads(f.read_text())["pid"] for f in out.glob("runs/*/sweep-run.json")]
            # its second record written, its first was surely reported (one task at a
            # time): it dies now, maybe before reporting the second, which then runs again
            if ran.count(procs[2].pid) >= 2 and not killed:
                os.kill(procs[2].pid, signal.SIGKILL)
                killed = True
        assert sweep.wait(timeout=300) == 0, "".join(lines)
        assert killed
        result = json.loads((out / "results.json").read_text())
        assert result["counts"]["runs"] == 8 and result["counts"]["failed"] == 0
        assert sorted(r["seed"] for r in result["runs"]) == list(range(1, 9))
        pids = {json.loads((out / "runs" / r["run"] / "sweep-run.json").read_text())["pid"]
                for r in result["runs"]}
        assert pids == {procs[1].pid, procs[2].pid}  # both ran some; the rest went on
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def test_a_lab_sweep_without_a_lab_worker_says_so(tmp_path, monkeypatch):
    from mrclab.experiments.sweep import run

    class NoLabClient:
        def scheduler_info(self):
            return {"workers": {"tcp://127.0.0.1:1": {"resources": {}}}}
    with pytest.raises(ExperimentError, match="no worker can run a lab"):
        run._check_workers(NoLabClient(), "lab")
