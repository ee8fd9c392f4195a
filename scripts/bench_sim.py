"""Simulator speed: packet-hops per wall-clock second and memory, for growing fat-trees.

    python scripts/bench_sim.py [--k 4,6,8,12] [--seconds 20e-6] [--mode ev]
        [--pipeline auto|native|python] [--traffic-manager auto|native|python]

Each run is one phase of the permutation experiment on the simulator (`mrclab sim
permutation --spec fattree:k=K`: the same pairs, senders and records), flows sized for
`--seconds` at 100 Gb/s; building and programming the fabric is printed apart. The rate
is given per wall-clock second and per CPU second of the event loop: on a shared machine
the CPU figure is the one to compare between runs.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from dataclasses import replace
from pathlib import Path

from mrclab.experiments import permutation, runner
from mrclab.experiments.config import Options
from mrclab.experiments.sim_engine.session import SimSession
from mrclab.fabric.spec import parse_spec
from mrclab.sim.program import compiled
from p4emu.switch.native_traffic_manager import TRAFFIC_MANAGERS
from p4emu.switch.program import PIPELINES


class TimedSession(SimSession):
    """A `SimSession` that also adds up the CPU time of its event loops."""

    cpu_s = 0.0
    traffic_manager = "auto"

    def settings(self):
        return replace(super().settings(), traffic_manager=self.traffic_manager)

    def _run(self, *args, **kwargs):
        started = time.process_time()
        try:
            return super()._run(*args, **kwargs)
        finally:
            self.cpu_s += time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", default="4,6,8,12")  # issue 29, goal 6: the cost as k grows
    ap.add_argument("--seconds", type=float, default=20e-6)
    ap.add_argument("--mode", default="ev")
    ap.add_argument("--pipeline", choices=PIPELINES, default="auto",
                    help="the switches' P4 pipeline: compiled (auto, native) or python")
    ap.add_argument("--traffic-manager", choices=TRAFFIC_MANAGERS, default="auto",
                    help="the switches' traffic manager: compiled (auto, native) or python")
    args = ap.parse_args(argv)
    try:
        ks = [int(k) for k in args.k.split(",")]
    except ValueError:
        ap.error(f"--k {args.k!r}: comma-separated even numbers")
    t0 = time.perf_counter()
    compiled(pipeline=args.pipeline)
    print(f"compile mrc.p4 once: {time.perf_counter() - t0:.1f} s")
    for k in ks:
        spec = f"fattree:k={k}"
        _, setup = runner.plan(Options("permutation", engine="sim", spec=spec,
                                       pipeline=args.pipeline))
        fabric = parse_spec(spec)
        session = TimedSession(fabric, setup, Path("."), lambda name: None)
        session.set_spray(args.mode)
        session.traffic_manager = args.traffic_manager
        plan = permutation.traffic(setup, fabric, args.seconds)
        t0 = time.perf_counter()
        run = session.run_flows(args.mode, plan, timeout=1.0)
        total = time.perf_counter() - t0
        hops, wall = session.packet_hops, session.wall_s
        done = sum(1 for f in run.flows if f.ok)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"fattree:k={k}: {len(plan)} flows, {hops} packet-hops in {wall:.1f} s "
              f"= {hops / wall:,.0f} packet-hops/s, {hops / session.cpu_s:,.0f} per CPU-s (build + program {total - wall:.1f} s; "
              f"{run.end * 1e6:.0f} us simulated; peak RSS {rss:.0f} MiB; "
              f"{done}/{len(plan)} flows done)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
