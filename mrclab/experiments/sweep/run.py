"""Running a sweep on Dask's `distributed`: an embedded LocalCluster (one worker process
per core, bound to 127.0.0.1) or a cluster by address. Every point is an ordinary
experiment run into its own folder; what it measured is written beside its outputs
(`sweep-run.json`), so a later invocation with the same `--out` skips what is done.

Lab runs take a whole machine: each asks for the worker resource `lab=1` (the embedded
cluster has one such worker; on a cluster, start workers with `--resources lab=1` on
machines that can run a lab).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from mrclab.experiments.config import ExperimentError, Options
from mrclab.experiments.sweep.aggregate import SweepRecord
from mrclab.experiments.sweep.grid import Point, describe
from mrclab.jsonrecords import from_json, to_json

RECORD = "sweep-run.json"
LAB_RESOURCE = "lab"
CONNECT_TIMEOUT_S = 5


@dataclass
class SweepOutcome:
    records: list[SweepRecord] = field(default_factory=list)  # one per point, in grid order
    skipped: int = 0  # found done by an earlier invocation
    interrupted: bool = False
    workers: int = 0
    wall_s: float = 0.0


def _installed_version() -> str:
    try:
        return "mrclab-" + metadata.version("mrclab")
    except metadata.PackageNotFoundError:
        return "unknown"


def code_version() -> str:
    """The commit and a digest of uncommitted changes: a run is reused only by the same
    code. Outside a checkout (an installed wheel), the installed version."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, timeout=10,
                                  cwd=Path(__file__).resolve().parents[2]).stdout
        except (OSError, subprocess.TimeoutExpired):
            return ""
    diff = git("diff", "HEAD")
    commit = git("rev-parse", "HEAD").strip() or _installed_version()
    return commit + ("+" + hashlib.sha256(diff.encode()).hexdigest()[:12] if diff else "")


def run_point(options: Options, outdir: str, key: str, config: dict) -> SweepRecord:
    """One run, on a worker: the experiment into `outdir`, its record beside it. Errors
    are recorded, not raised (a raise would make Dask retry a run that would fail again)."""
    from mrclab.experiments import registry, runner

    started = time.monotonic()
    record = SweepRecord(key, config, options.seed, socket.gethostname(), os.getpid())
    try:
        if options.engine == "lab":
            from mrclab.lab.lab import cannot_run_here

            if problem := cannot_run_here():
                raise ExperimentError(f"{socket.gethostname()}: {problem}")
        with contextlib.redirect_stderr(io.StringIO()):  # the runs' own progress lines
            summary = runner.run(options, Path(outdir))
        record.faithful = summary["verdict"].faithful
        record.figures = registry.get(options.name).sweep_figures(summary["analysis"])
    except Exception as exc:  # recorded with its configuration; the sweep goes on
        record.error = f"{type(exc).__name__}: {exc}"
    record.seconds = round(time.monotonic() - started, 3)
    path = Path(outdir) / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(to_json(record)) + "\n")
    tmp.replace(path)  # a record is whole or absent: an interrupted run is run again
    return record


def done_record(outdir: Path) -> SweepRecord | None:
    """The record of a finished run in `outdir` (an error is not finished)."""
    try:
        record = from_json(SweepRecord, json.loads((outdir / RECORD).read_text()))
    except (OSError, ValueError, TypeError):  # absent, cut short, or not a record
        return None
    return record if not record.error else None


def check_scheduler(address: str) -> None:
    if not address.startswith(("tcp://", "tls://")) or ":" not in address.split("://", 1)[1]:
        raise ExperimentError(f"--scheduler {address!r}: expected tcp://HOST:PORT")


def _client(engine: str, workers: int | None, scheduler: str | None):
    """(client, cluster or None); ExperimentError naming a bad or unreachable scheduler."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler is not None:
        check_scheduler(scheduler)
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT_S), None
        except (OSError, TimeoutError) as exc:
            raise ExperimentError(f"--scheduler {scheduler}: cannot connect within "
                                  f"{CONNECT_TIMEOUT_S} s ({type(exc).__name__})") from None
    n = 1 if engine == "lab" else workers or os.cpu_count() or 1
    # a worker that dies mid-run: its run is tried once more elsewhere, then recorded failed
    dask.config.set({"distributed.scheduler.allowed-failures": 1,
                     "distributed.worker.daemon": False})
    cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None,
                           resources={LAB_RESOURCE: 1} if engine == "lab" else None)
    return Client(cluster), cluster


def run_points(points: list[Point], out: Path, engine: str, workers: int | None,
               scheduler: str | None, note: Callable[[str], None]) -> SweepOutcome:
    """Run every point not done already; Ctrl-C cancels what runs and returns what finished."""
    outcome = SweepOutcome()
    started = time.monotonic()
    by_key: dict[str, SweepRecord] = {}
    todo = []
    for p in points:
        record = done_record(out / "runs" / p.key)
        if record is not None:
            by_key[p.key] = record
        else:
            todo.append(p)
    outcome.skipped = len(points) - len(todo)
    if outcome.skipped:
        note(f"{outcome.skipped} of {len(points)} runs done already (same options, same "
             "code): skipped")
    if todo:
        client, cluster = _client(engine, workers, scheduler)
        try:
            outcome.workers = len(client.scheduler_info()["workers"])
            _check_workers(client, engine)
            outcome.interrupted = _submit_all(client, todo, out, engine, by_key, note)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
            if engine == "lab" and outcome.interrupted:
                _clean_lab()
    outcome.records = [by_key[p.key] for p in points if p.key in by_key]
    outcome.wall_s = time.monotonic() - started
    return outcome


def _check_workers(client, engine: str) -> None:
    workers = client.scheduler_info()["workers"]
    if not workers:
        raise ExperimentError("the cluster has no workers")
    if engine == "lab":
        able = [w for w, info in workers.items()
                if info.get("resources", {}).get(LAB_RESOURCE)]
        if not able:
            raise ExperimentError("no worker can run a lab: start one with "
                                  f"`dask worker ... --resources {LAB_RESOURCE}=1` as root on "
                                  "a machine with Mininet")


def _submit_all(client, todo: list[Point], out: Path, engine: str, by_key: dict,
                note: Callable[[str], None]) -> bool:
    """Submit, collect as they finish, print progress; True when Ctrl-C stopped it."""
    from distributed import as_completed

    resources = {LAB_RESOURCE: 1} if engine == "lab" else None
    futures = {}
    for p in todo:
        fut = client.submit(run_point, p.options, str(out / "runs" / p.key), p.key, p.config,
                            key=f"run-{p.key}", pure=False, resources=resources)
        futures[fut] = p
    started = time.monotonic()
    done = failed = 0
    try:
        for fut in as_completed(list(futures)):
            p = futures[fut]
            try:
                record = fut.result()
            except Exception as exc:  # the worker died twice under it, or Dask failed it
                record = SweepRecord(p.key, p.config, p.varied["seed"],
                                     error=f"{type(exc).__name__}: {exc}")
            by_key[p.key] = record
            # its result lives in a worker's memory: let it go, or a worker dying later
            # makes Dask run the finished run again to recover it
            del futures[fut]
            fut.release()
            done += 1
            failed += bool(record.error)
            elapsed = time.monotonic() - started
            left = elapsed / done * (len(todo) - done)
            running = min(len(futures), len(client.scheduler_info()["workers"]))
            note(f"{done}/{len(todo)} runs done, {running} running, {failed} failed, about "
                 f"{left:.0f} s left" + (f" (failed: {describe(p)}: {record.error})"
                                         if record.error else ""))
    except KeyboardInterrupt:
        client.cancel(list(futures))
        note("interrupted: running runs cancelled; finished runs kept")
        return True
    return False


def _clean_lab() -> None:
    """What a lab run cut short by the cluster's closing left: processes, interfaces."""
    from mrclab.lab.cleanup import clean_leftovers
    from mrclab.places import default_build_dir, runtime_dir

    build = default_build_dir() / "experiments"
    with contextlib.suppress(Exception):
        clean_leftovers(build, runtime_dir(build))
    print("sweep: cleaned the lab's leftovers", file=sys.stderr)
