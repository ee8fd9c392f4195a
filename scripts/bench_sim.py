"""Simulator speed: packet-hops and events per CPU-second and peak memory, for growing
fat-trees and for 8 planes, beside htsim on the same permutation when given one.

    python scripts/bench_sim.py [--k 4,8,12,16] [--planes 8 --planes-k 8] [--seconds 20e-6]
        [--mode ev]
        [--fabric auto|native|python] [--pipeline ...] [--traffic-manager ...]
        [--htsim PATH [--htsim-args '...']]

Each run is one phase of the permutation experiment on the simulator (`mrclab sim
permutation --spec fattree:k=K`: the same pairs, senders and records), flows sized for
`--seconds` at 100 Gb/s, in a child process of its own so that each peak RSS is its own
run's; building and programming the fabric is printed apart. Rates are per CPU-second of
the event loop (on a shared machine the figure to compare between runs).

`--htsim PATH` runs the same permutation (the same host pairs, flow sizes, MTU, link rate
and delay) through an htsim binary built outside this repository (csg-htsim's
`htsim_ndp`, `htsim_eqds`, uet-htsim's `htsim_uec`, ...) as

    PATH -tm FILE -nodes N -mtu MTU -linkspeed MBPS -end US [--htsim-args]

where FILE is a connection matrix in htsim's format ("Nodes N", "Connections C", then
"SRC->DST id I start 0 size BYTES" per flow, hosts numbered from 0), and prints its CPU
time and peak memory and the ratio of the two simulators' CPU times for the same work.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from mrclab.experiments import permutation, runner
from mrclab.experiments.config import Options
from mrclab.experiments.sim_engine.session import SimSession
from mrclab.fabric.spec import parse_spec
from mrclab.sim.fabric_core import FABRICS, default_fabric
from mrclab.sim.program import compiled
from p4emu.switch.native_traffic_manager import TRAFFIC_MANAGERS
from p4emu.switch.program import PIPELINES

LINK_RATE_BPS = 100e9


class TimedSession(SimSession):
    """A `SimSession` that also adds up the CPU time and events of its event loops."""

    cpu_s = 0.0
    events = 0
    traffic_manager = "auto"
    fabric_choice = "auto"

    def settings(self):
        return replace(super().settings(), traffic_manager=self.traffic_manager,
                       fabric=self.fabric_choice)

    def _run(self, net, *args, **kwargs):
        started, events = time.process_time(), net.loop.events_run
        try:
            return super()._run(net, *args, **kwargs)
        finally:
            self.cpu_s += time.process_time() - started
            self.events += net.loop.events_run - events


def measure(spec: str, args) -> dict:
    """One permutation phase on `spec`: its figures (run in this process)."""
    _, setup = runner.plan(Options("permutation", engine="sim", spec=spec,
                                   pipeline=args.pipeline))
    fabric = parse_spec(spec)
    session = TimedSession(fabric, setup, Path("."), lambda name: None)
    session.set_spray(args.mode)
    session.traffic_manager, session.fabric_choice = args.traffic_manager, args.fabric
    plan = permutation.traffic(setup, fabric, args.seconds)
    t0 = time.perf_counter()
    run = session.run_flows(args.mode, plan, timeout=1.0)
    hosts = sorted(fabric.hosts, key=lambda h: (len(h), h))  # h1, h2, ..., h10
    return {"spec": spec, "flows": len(plan), "hops": session.packet_hops,
            "cpu_s": session.cpu_s, "events": session.events,
            "build_s": time.perf_counter() - t0 - session.wall_s,
            "simulated_us": run.end * 1e6, "done": sum(1 for f in run.flows if f.ok),
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "mtu": setup.mtu, "delay_s": setup.link_delay_s,
            "pairs": [(hosts.index(f.src), hosts.index(f.dst), f.size) for f in plan]}


def in_child(spec: str, argv: list[str]) -> dict:
    """`measure(spec)` in a child process: its own peak memory."""
    r = subprocess.run([sys.executable, __file__, *argv, "--one", spec],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{spec}: {r.stderr.strip().splitlines()[-1:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def run_htsim(path: str, extra: str, fig: dict) -> dict:
    """The same permutation through the htsim binary at `path`: CPU s and peak MiB."""
    nodes = max(max(a, b) for a, b, _ in fig["pairs"]) + 1
    with tempfile.TemporaryDirectory() as tmp:
        tm = Path(tmp) / "permutation.cm"
        lines = [f"Nodes {nodes}", f"Connections {len(fig['pairs'])}"]
        lines += [f"{a}->{b} id {i + 1} start 0 size {size}"
                  for i, (a, b, size) in enumerate(fig["pairs"])]
        tm.write_text("\n".join(lines) + "\n")
        end_us = max(1, int(fig["simulated_us"] * 4))
        cmd = [path, "-tm", str(tm), "-nodes", str(nodes), "-mtu", str(fig["mtu"]), "-linkspeed", str(int(LINK_RATE_BPS / 1e6)),
               "-end", str(end_us), *shlex.split(extra)]
        # wait4: htsim's own CPU time and peak (RUSAGE_CHILDREN would also count the
        # simulator's child processes, whose peak is larger)
        proc = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"htsim: {shlex.join(cmd)} exited {code}: {err.strip()[-300:]}")
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024,
            "command": shlex.join(cmd)}


def report(fig: dict, htsim: dict | None) -> str:
    cpu = fig["cpu_s"]
    line = (f"{fig['spec']}: {fig['flows']} flows, {fig['hops']:,} packet-hops, "
            f"{fig['hops'] / cpu:,.0f} packet-hops/CPU-s, {fig['events'] / cpu:,.0f} events/CPU-s, "
            f"peak {fig['peak_mib']:.0f} MiB (build + program {fig['build_s']:.1f} s; "
            f"{fig['simulated_us']:.0f} us simulated; {fig['done']}/{fig['flows']} flows done)")
    if htsim:
        line += (f"\n  htsim: {htsim['cpu_s']:.2f} CPU-s, peak {htsim['peak_mib']:.0f} MiB; "
                 f"this simulator {cpu / max(htsim['cpu_s'], 1e-9):.1f}x its CPU time "
                 f"({htsim['command']})")
    return line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", default="4,8,12,16")
    ap.add_argument("--planes", type=int, default=8,
                    help="also this many planes of fattree:k=PLANES_K (0: none)")
    ap.add_argument("--planes-k", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=20e-6)
    ap.add_argument("--mode", default="ev")
    ap.add_argument("--fabric", choices=FABRICS, default=default_fabric(),
                    help="the event loop, wires and switches' data path: native (C) or "
                         "python (default: $MRCLAB_SIM_FABRIC, else auto)")
    ap.add_argument("--pipeline", choices=PIPELINES, default="auto",
                    help="the switches' P4 pipeline: compiled (auto, native) or python")
    ap.add_argument("--traffic-manager", choices=TRAFFIC_MANAGERS, default="auto",
                    help="the switches' traffic manager: compiled (auto, native) or python")
    ap.add_argument("--htsim", metavar="PATH", help="an htsim binary to run beside")
    ap.add_argument("--htsim-args", default="", help="more arguments for it")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # a child's single run
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args)))
        return 0
    try:
        ks = [int(k) for k in args.k.split(",")]
    except ValueError:
        ap.error(f"--k {args.k!r}: comma-separated even numbers")
    t0 = time.perf_counter()
    compiled(pipeline=args.pipeline)
    print(f"compile mrc.p4 once: {time.perf_counter() - t0:.1f} s", flush=True)
    passed = list(argv if argv is not None else sys.argv[1:])
    specs = [f"fattree:k={k}" for k in ks]
    if args.planes:
        specs.append(f"multiplane:planes={args.planes},base=fattree:k={args.planes_k}")
    for spec in specs:
        fig = in_child(spec, passed)
        htsim = (run_htsim(args.htsim, args.htsim_args, fig)
                 if args.htsim and spec.startswith("fattree") else None)
        print(report(fig, htsim), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
