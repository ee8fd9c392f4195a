"""`python -m mrclab.lab.soak` (`make soak`): the lab through an hour of churn.

A fat-tree lab runs continuous MRC transfers while, on a schedule, a core link fails and
returns, a switch process is killed and restarted, and the controller restarts once. It
counts transfers done and lost, the controller's reroute time for every failure, and
samples every lab process's RSS and open file descriptors, so that a leak shows as growth
after the warm-up. Writes soak.json and soak.png to --out and prints the summary.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mrclab.lab.lab import Lab, LabConfig, LabError, cannot_run_here
from mrclab.lab.soak_figures import ProcessSample, growth, plot_samples
from mrclab.lab.transfers import TransferError, transfer
from p4emu.cmdline import OneLineParser, UsageError, run_main

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SoakPlan:
    """How long and how often: every figure in seconds."""

    duration: float = 3600.0
    link_every: float = 60.0  # a core link fails ...
    link_down_for: float = 20.0  # ... and returns after this long
    switch_every: float = 600.0  # a switch process killed and restarted
    controller_at: float | None = None  # the controller's one restart (default: half-way)
    sample_every: float = 10.0
    warmup: float = 300.0  # growth is judged after this

    def events(self) -> list[tuple[float, str]]:
        """(time, what) of every scheduled disturbance, in order."""
        out = [(t, "link") for t in _every(self.link_every, self.duration - self.link_down_for)]
        out += [(t, "switch") for t in _every(self.switch_every, self.duration - 30)]
        restart = self.duration / 2 if self.controller_at is None else self.controller_at
        out.append((restart, "controller"))
        return sorted(out)


def _every(period: float, until: float) -> list[float]:
    return [period * i for i in range(1, int(until // period) + 1)] if period > 0 else []


@dataclass
class SoakRecord:
    plan: SoakPlan
    spec: str
    target: str
    transfers_done: int = 0
    transfers_lost: int = 0
    lost: list[str] = field(default_factory=list)  # why each lost transfer failed
    link_failures: int = 0
    reroutes: list[dict] = field(default_factory=list)  # the controller's records
    switch_restarts: int = 0
    controller_restarts: int = 0
    samples: list[ProcessSample] = field(default_factory=list)
    elapsed_s: float = 0.0
    interrupted: bool = False

    def summary(self) -> dict:
        downs = [r for r in self.reroutes if r["status"] == "down"]
        totals = sorted(r["from_command_s"] for r in downs if r["from_command_s"] is not None)
        return {
            "minutes": round(self.elapsed_s / 60, 1),
            "transfers_done": self.transfers_done, "transfers_lost": self.transfers_lost,
            "link_failures": self.link_failures, "rerouted": len(totals),
            "reroute_s_median": totals[len(totals) // 2] if totals else None,
            "reroute_s_max": totals[-1] if totals else None,
            "switch_restarts": self.switch_restarts,
            "controller_restarts": self.controller_restarts,
            "growth_after_warmup": growth(self.samples, self.plan.warmup),
            "interrupted": self.interrupted,
        }


class Soak:
    def __init__(self, lab: Lab, plan: SoakPlan, workdir: Path, seed: int = 1) -> None:
        self.lab, self.plan, self.workdir = lab, plan, workdir
        self.rng = random.Random(seed)
        self.record = SoakRecord(plan, lab.config.spec, lab.target)
        self._stop = threading.Event()
        self._lab_lock = threading.Lock()  # disturbances and samples read the lab's processes
        self._started = 0.0

    def run(self) -> SoakRecord:
        self._started = time.monotonic()
        workers = [threading.Thread(target=self._transfers, name="transfers", daemon=True),
                   threading.Thread(target=self._sampler, name="sampler", daemon=True)]
        for worker in workers:
            worker.start()
        try:
            self._disturb()
        except KeyboardInterrupt:
            self.record.interrupted = True
        finally:
            self._stop.set()
            for worker in workers:
                worker.join(timeout=180)
            self._collect_reroutes()
            self.record.elapsed_s = time.monotonic() - self._started
        return self.record

    def _now(self) -> float:
        return time.monotonic() - self._started

    def _sleep_until(self, t: float) -> bool:
        """False when the soak is to stop first."""
        return not self._stop.wait(max(0.0, t - self._now()))

    # --- disturbances ------------------------------------------------------------------
    def _disturb(self) -> None:
        cores = [(lk.a, lk.b) for lk in self.lab.fabric.fabric_links()
                 if self.lab.fabric.switches[lk.a].role == "core"
                 or self.lab.fabric.switches[lk.b].role == "core"]
        aggs = [sw.name for sw in self.lab.fabric.switches.values() if sw.role == "agg"]
        for n, (at, what) in enumerate(self.plan.events()):
            if not self._sleep_until(at):
                return
            if what == "link":
                a, b = cores[n % len(cores)]
                log.info("t=%.0f s: link %s-%s down for %.0f s", at, a, b, self.plan.link_down_for)
                with self._lab_lock:
                    self.lab.set_link(a, b, up=False)
                self.record.link_failures += 1
                if not self._sleep_until(at + self.plan.link_down_for):
                    self.lab.set_link(a, b, up=True)
                    return
                with self._lab_lock:
                    self.lab.set_link(a, b, up=True)
            elif what == "switch":
                name = self.rng.choice(aggs)
                log.info("t=%.0f s: switch %s's process killed and restarted", at, name)
                with self._lab_lock:
                    self.lab.restart_switch(name)
                self.record.switch_restarts += 1
            else:
                log.info("t=%.0f s: controller restarted", at)
                self._collect_reroutes()  # its records go with it
                with self._lab_lock:
                    self.lab.stop_controller()
                    self.lab.start_controller()
                    self.lab.wait_ready(60)
                self.record.controller_restarts += 1
        self._sleep_until(self.plan.duration)

    def _collect_reroutes(self) -> None:
        try:
            records = [r.to_json() for r in self.lab.reconvergences()]
        except Exception as exc:  # noqa: BLE001 - a controller that is gone has no records
            log.warning("reconvergence records not read: %s", exc)
            return
        known = {(r["link"], r["status"], r["detected_at"]) for r in self.record.reroutes}
        self.record.reroutes += [r for r in records
                                 if (r["link"], r["status"], r["detected_at"]) not in known]

    # --- traffic -----------------------------------------------------------------------
    def _transfers(self) -> None:
        hosts = sorted(self.lab.fabric.hosts)
        n = 0
        while not self._stop.is_set():
            dst, *senders = self.rng.sample(hosts, 3)
            workdir = self.workdir / f"t{n % 4}"
            shutil.rmtree(workdir, ignore_errors=True)
            why = self._one_transfer(senders, dst, workdir)
            if why is None:
                self.record.transfers_done += 1
            else:
                self.record.transfers_lost += 1
                self.record.lost.append(f"t={self._now():.0f} s {'+'.join(senders)}->{dst}: {why}")
                log.warning("transfer lost: %s", self.record.lost[-1])
            n += 1

    def _one_transfer(self, senders: list[str], dst: str, workdir: Path) -> str | None:
        try:
            result = transfer(self.lab, senders, dst, "1M", workdir, timeout=120)
        except TransferError as exc:
            return str(exc)
        if not all(s.ok for s in result.senders):
            return "; ".join(s.error or "sender failed" for s in result.senders if not s.ok)
        if result.receiver.messages != len(senders) or \
                not all(d.ok for d in result.receiver.digests):
            return f"{result.receiver.messages} of {len(senders)} messages whole"
        return None

    # --- processes ---------------------------------------------------------------------
    def _processes(self) -> dict[str, int]:
        """role -> pid of every long-lived lab process (switch processes, controller)."""
        out: dict[str, int] = {}
        net = self.lab.net
        if net is not None:
            for shard in net.shards:
                if shard.process is not None:
                    out[shard.name] = shard.process.pid
            for name in self.lab.fabric.switches:
                sw = net.switch(name)
                if sw.shard is None and sw.process is not None:
                    out[name] = sw.process.pid
        if self.lab.controller is not None:
            out["controller"] = self.lab.controller.pid
        return out

    def _sampler(self) -> None:
        while not self._stop.is_set():
            with self._lab_lock:
                processes = self._processes()
            t = self._now()
            for role, pid in processes.items():
                sample = ProcessSample.read(role, pid, t)
                if sample is not None:
                    self.record.samples.append(sample)
            self._stop.wait(self.plan.sample_every)


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = OneLineParser(prog="python -m mrclab.lab.soak", description=__doc__,
                       error_prefix="soak")
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--topo", default="fattree:k=4")
    ap.add_argument("--target", default="auto", choices=("auto", "p4emu", "bmv2"))
    ap.add_argument("--spray", default="ev")
    ap.add_argument("--link-every", type=float, default=60.0, help="seconds")
    ap.add_argument("--link-down-for", type=float, default=20.0, help="seconds")
    ap.add_argument("--switch-every", type=float, default=600.0, help="seconds")
    ap.add_argument("--controller-at", type=float, default=None,
                    help="seconds (default: half-way)")
    ap.add_argument("--sample-every", type=float, default=10.0, help="seconds")
    ap.add_argument("--warmup", type=float, default=300.0,
                    help="seconds before growth is judged")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="results/soak")
    args = ap.parse_args(argv)
    for name in ("minutes", "link_every", "link_down_for", "switch_every", "sample_every"):
        if getattr(args, name) <= 0:
            ap.error(f"--{name.replace('_', '-')} must be > 0")
    if args.link_down_for >= args.link_every:
        ap.error("--link-down-for must be shorter than --link-every")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s",
                        force=True)  # Mininet's import set up a handler of its own
    logging.getLogger("mininet").propagate = False
    return run_main("soak", lambda: _soak(args), {UsageError: 2, (LabError, ValueError): 1})


def _soak(args: argparse.Namespace) -> int:
    if (problem := cannot_run_here()):
        raise UsageError(problem)
    plan = SoakPlan(duration=args.minutes * 60, link_every=args.link_every,
                    link_down_for=args.link_down_for, switch_every=args.switch_every,
                    controller_at=args.controller_at, sample_every=args.sample_every,
                    warmup=args.warmup)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with Lab(LabConfig(args.topo, target=args.target, spray=args.spray)) as lab:
        lab.start()
        record = Soak(lab, plan, out / "transfers", args.seed).run()
    summary = record.summary()
    (out / "soak.json").write_text(json.dumps(
        {**summary, "plan": asdict(plan), "spec": record.spec, "target": record.target,
         "lost": record.lost, "reroutes": record.reroutes,
         "samples": [asdict(s) for s in record.samples]}, indent=1))
    plot_samples(record.samples, out / "soak.png", markers=plan.events())
    for key, value in summary.items():
        print(f"{key}: {value}")
    print(f"written: {out / 'soak.json'}, {out / 'soak.png'}")
    return 0 if record.transfers_lost == 0 and not record.interrupted else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
