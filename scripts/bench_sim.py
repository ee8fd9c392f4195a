"""Simulator speed: packet-hops per wall-clock second and memory, for growing fat-trees.

    python scripts/bench_sim.py [--k 4,6,8] [--seconds 20e-6] [--mode ev]

Each run is the permutation (`mrclab sim permutation`) on fattree:k=K at the default
datacenter settings, flows sized for `--seconds` at 100 Gb/s; build time (compile the P4
once, program every switch through p4emu's entity writes) is printed apart.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from simulator.permutation import PermutationRun, run_mode
from simulator.program import compiled


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", default="4,6,8")
    ap.add_argument("--seconds", type=float, default=20e-6)
    ap.add_argument("--mode", default="ev")
    args = ap.parse_args(argv)
    try:
        ks = [int(k) for k in args.k.split(",")]
    except ValueError:
        ap.error(f"--k {args.k!r}: comma-separated even numbers")
    t0 = time.perf_counter()
    compiled()
    print(f"compile mrc.p4 once: {time.perf_counter() - t0:.1f} s")
    for k in ks:
        t0 = time.perf_counter()
        m = run_mode(PermutationRun(spec=f"fattree:k={k}", seconds=args.seconds), args.mode)
        total = time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"fattree:k={k}: {m.flows} flows, {m.packet_hops} packet-hops in {m.wall_s:.1f} s "
              f"= {m.packet_hops / m.wall_s:,.0f} packet-hops/s (build + program "
              f"{total - m.wall_s:.1f} s; {m.virtual_s * 1e6:.0f} us simulated; "
              f"peak RSS {rss:.0f} MiB; {m.completed}/{m.flows} flows done)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
