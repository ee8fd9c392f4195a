"""`mrclab sim permutation [--spec S] [--modes ecmp,ev,source] [--rate R] [--mtu B]
[--delay S] [--queue-depth N] [--trim N] [--ecn N] [--seconds S] [--fail WHAT@T]...
[--seed N] [--json FILE]`: the permutation in virtual time, no root needed."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from simulator.network import SimSettings
from simulator.permutation import Failure, PermutationRun, run_permutation

UNITS = {"k": 1e3, "M": 1e6, "G": 1e9}


def _rate(text: str) -> float:
    scale = UNITS.get(text[-1:], 1.0)
    try:
        value = float(text[:-1] if text[-1:] in UNITS else text) * scale
    except ValueError:
        value = -1.0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"bad rate {text!r}: e.g. 100G, 400G, 4M")
    return value


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("sim", help="run an experiment in the virtual-time simulator (no root)")
    p.add_argument("experiment", choices=["permutation"])
    p.add_argument("--spec", default="fattree:k=4",
                   help="fabric spec, e.g. fattree:k=8, multiplane:planes=8,base=fattree:k=4")
    p.add_argument("--modes", default="ecmp,ev,source", help="spray modes, comma-separated")
    p.add_argument("--rate", type=_rate, default=SimSettings.link_rate_bps,
                   help="link rate in b/s (K/M/G suffix; default 100G)")
    p.add_argument("--mtu", type=int, default=SimSettings.mtu)
    p.add_argument("--delay", type=float, default=SimSettings.link_delay_s,
                   help="per-link propagation delay, s")
    p.add_argument("--queue-depth", type=int, default=SimSettings.queue_depth)
    p.add_argument("--trim", type=int, default=SimSettings.trim_threshold)
    p.add_argument("--ecn", type=int, default=SimSettings.ecn_threshold)
    p.add_argument("--seconds", type=float, default=PermutationRun.seconds,
                   help="each flow's size as this long at the link rate (virtual s)")
    p.add_argument("--fail", action="append", default=[], metavar="WHAT@T",
                   help="link:A,B@T, switch:NAME@T or plane:N@T (virtual s); repeatable")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, help="write the results here")
    return p


class _Progress:
    """One line on stderr every second of wall time: virtual time, wall time, speed."""

    def __init__(self) -> None:
        self.started = self.last = time.perf_counter()

    def __call__(self, mode: str, net) -> None:
        now = time.perf_counter()
        if now - self.last >= 1.0:
            self.last = now
            wall = now - self.started
            print(f"\r[{mode}] virtual {net.loop.now * 1e6:9.1f} us  wall {wall:6.1f} s  "
                  f"{net.packet_hops() / max(wall, 1e-9):8.0f} packet-hops/s",
                  end="", file=sys.stderr, flush=True)


def main(args: argparse.Namespace) -> int:
    try:
        settings = SimSettings(link_rate_bps=args.rate, mtu=args.mtu, link_delay_s=args.delay,
                               queue_depth=args.queue_depth, trim_threshold=args.trim,
                               ecn_threshold=args.ecn, seed=args.seed)
        run = PermutationRun(spec=args.spec, modes=tuple(m for m in args.modes.split(",") if m),
                             settings=settings, seconds=args.seconds,
                             failures=tuple(Failure.parse(f) for f in args.fail),
                             seed=args.seed)
        if args.seconds <= 0 or not run.modes:
            raise ValueError("--seconds must be > 0 and --modes name at least one mode")
        result = run_permutation(run, _Progress())
    except ValueError as exc:
        print(f"\nmrclab sim: {exc}".strip(), file=sys.stderr)
        return 2
    print(file=sys.stderr)
    for m in result.modes:
        s = m.summary()
        print(f"{m.mode:7s} mean {s['mean']:.3f}  min {s['min']:.3f}  p10 {s['p10']:.3f}  "
              f"of the link rate; {s['completed']}/{s['flows']} flows done; "
              f"{m.packet_hops} packet-hops in {m.wall_s:.1f} s "
              f"({s['hops_per_wall_s']:.0f}/s){'  INCOMPLETE (interrupted)' if m.incomplete else ''}")
    if args.json is not None:
        args.json.write_text(json.dumps(result.as_dict(), indent=1) + "\n")
    return 130 if any(m.incomplete for m in result.modes) else 0
