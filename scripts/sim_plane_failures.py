"""Plane failures in the endpoint simulator: many seeds, one plane's core failing at a
random time mid-transfer; prints how many transfers failed and how long flows stalled.

    python scripts/sim_plane_failures.py --seeds 200 [--mode ev] [--jitter 0.02]

The fabric is the planes experiment's (2 planes of fat-tree k=4, 16 flows in a cross-pod
permutation, 0.5 Mb/s links, 1500-byte MTU, trim at 32 packets, ECN at 16); each flow is
sized for `--seconds` over both planes, and plane 1's aggregation-core links fail at a time
drawn uniformly from [0.2 s, --seconds]. The stall of a flow is the longest time after the
failure in which its receiver placed no new byte, while it was unfinished.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from endpoint.core.sender_config import emulated_fabric_config
from endpoint.sim.permutation import MODES, PermutationSpec, run_permutation


def stall_after(progress: list[tuple[float, int]], fail_at: float, end: float) -> float:
    """Longest gap between byte placements after `fail_at`, up to `end`."""
    times = [fail_at] + [t for t, _ in progress if fail_at < t <= end] + [end]
    return max(b - a for a, b in zip(times, times[1:], strict=False))


def run_seed(seed: int, mode: str, seconds: float, jitter: float) -> dict:
    fail_at = random.Random(seed).uniform(0.2, seconds)
    spec = PermutationSpec(rate=500_000, mtu=1500, trim_threshold=32, ecn_threshold=16,
                           hop_jitter=jitter, planes=2, failed_plane=1, fail_at=fail_at,
                           seconds=seconds, warmup=0.5)
    r = run_permutation(mode, seed, spec, emulated_fabric_config(idle_timeout=5.0),
                        max_time=20 * seconds + 30)
    stalls = [stall_after(p, fail_at, s.finish_time) for p, s in zip(r.progress, r.senders, strict=True)
              if s.done and s.finish_time > fail_at]
    return {"seed": seed, "fail_at": fail_at, "failed": sum(not s.done for s in r.senders),
            "gave_up": [s.error for s in r.senders if s.failed],
            "intact": r.intact, "flows": len(r.senders), "stalls": stalls,
            "srtt": statistics.median(s.rtt.srtt for s in r.senders),
            "last_finish": max((s.finish_time or 0.0) for s in r.senders)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--mode", choices=MODES, default="ev")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--jitter", type=float, default=0.0, help="per-hop delay jitter, s")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.seeds < 1 or args.seconds <= 0.2:
        ap.error("--seeds must be >= 1 and --seconds > 0.2")
    t0 = time.time()
    results = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        res = run_seed(seed, args.mode, args.seconds, args.jitter)
        results.append(res)
        if args.verbose or res["failed"]:
            print(f"seed {seed}: failure at {res['fail_at']:.2f} s, {res['failed']} failed "
                  f"{res['gave_up']}, worst stall {max(res['stalls'], default=0):.2f} s, "
                  f"median srtt {res['srtt'] * 1e3:.0f} ms", flush=True)
    stalls = sorted(s for r in results for s in r["stalls"])
    srtt = statistics.median(r["srtt"] for r in results)
    failed = sum(r["failed"] for r in results)
    print(f"{len(results)} plane failures ({args.mode}, jitter {args.jitter * 1e3:g} ms/hop), "
          f"{sum(r['flows'] for r in results)} transfers: {failed} failed, "
          f"{sum(r['flows'] - r['intact'] for r in results)} not delivered intact")
    if stalls:
        q = statistics.quantiles(stalls, n=100, method="inclusive")
        print(f"stall after the failure per flow: median {statistics.median(stalls):.3f} s, "
              f"p99 {q[98]:.3f} s, max {stalls[-1]:.3f} s; median srtt {srtt * 1e3:.0f} ms "
              f"(max stall = {stalls[-1] / srtt:.1f} srtt)")
    print(f"wall time {time.time() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
