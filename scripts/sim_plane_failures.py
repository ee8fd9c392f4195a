"""Plane failures on the simulator, many seeds: one plane's core fails at a random time
mid-transfer; prints how many transfers failed and how long flows stalled.

    python scripts/sim_plane_failures.py --seeds 40 [--mode ev] [--seconds 3]

The fabric is the planes experiment's at the lab's figures (2 planes of fat-tree k=4 running
mrc.p4, 16 flows in a cross-pod permutation, 0.5 Mb/s links, 1500-byte MTU, trim at 32
packets, ECN at 16, the lab agent's senders); each flow is sized for `--seconds` over both
planes, and plane 1's aggregation-core links fail (gray: the ports stay up) at a time drawn
uniformly from [0.2 s, --seconds]. The stall of a flow is the longest time after the
failure in which it had no new byte acknowledged, while it was unfinished.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from mrclab.endpoint.core.sender_config import emulated_fabric_config
from mrclab.endpoint.host import FlowSpec
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.spray import SPRAY_MODES
from mrclab.fabric.traffic import cross_group_permutation
from mrclab.sim import SimNetwork, SimSettings
from mrclab.sim.links import LinkState

SPEC = "multiplane:planes=2,base=fattree:k=4"
RATE = 500e3
FAILED_PLANE = 1


def stall_after(progress: list[tuple[float, int]], fail_at: float, end: float) -> float:
    """Longest time after `fail_at`, up to `end`, without a new byte acknowledged."""
    times = [fail_at] + [t for (t, acked), (_, before) in zip(progress[1:], progress, strict=False)
                         if fail_at < t <= end and acked > before] + [end]
    return max(b - a for a, b in zip(times, times[1:], strict=False))


def run_seed(seed: int, mode: str, seconds: float) -> dict:
    fail_at = random.Random(seed).uniform(0.2, seconds)
    fabric = parse_spec(SPEC)
    settings = SimSettings(link_rate_bps=RATE, link_delay_s=0.0, mtu=1500, queue_depth=64,
                           trim_threshold=32, ecn_threshold=16, spray=mode, seed=seed,
                           sample_interval_s=1e-3)
    net = SimNetwork(fabric, settings)
    net.start(probing=False)  # the endpoints alone: the controller never reroutes here
    size = int(2 * RATE * seconds / 8)
    for i, (src, dst) in enumerate(cross_group_permutation(fabric, seed)):
        net.add_flow(FlowSpec(src, dst, size, seed=seed * 1000 + i),
                     emulated_fabric_config(idle_timeout=5.0))
    for link in fabric.links:
        a, b = fabric.switches.get(link.a), fabric.switches.get(link.b)
        if a and b and a.plane == FAILED_PLANE and {a.role, b.role} == {"agg", "core"}:
            net.set_link(link.a, link.b, LinkState.GRAY, at=fail_at)
    net.run_flows(max_time=20 * seconds + 30)
    senders = [f.sender for f in net.flows]
    stalls = [stall_after(f.progress, fail_at, f.sender.finish_time) for f in net.flows
              if f.sender.done and f.sender.finish_time > fail_at]
    intact = sum(1 for f in net.flows for m in net.hosts[f.spec.dst].messages
                 if m.ok and m.data == f.sender.data)
    return {"seed": seed, "fail_at": fail_at, "failed": sum(not s.done for s in senders),
            "gave_up": [s.error for s in senders if s.failed], "intact": intact,
            "flows": len(senders), "stalls": stalls,
            "srtt": statistics.median(s.rtt.srtt for s in senders),
            "hops": net.packet_hops()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--mode", choices=sorted(SPRAY_MODES), default="ev")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.seeds < 1 or args.seconds <= 0.2:
        ap.error("--seeds must be >= 1 and --seconds > 0.2")
    t0 = time.time()
    results = []
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        res = run_seed(seed, args.mode, args.seconds)
        results.append(res)
        if args.verbose or res["failed"]:
            print(f"seed {seed}: failure at {res['fail_at']:.2f} s, {res['failed']} failed "
                  f"{res['gave_up']}, worst stall {max(res['stalls'], default=0):.2f} s, "
                  f"median srtt {res['srtt'] * 1e3:.0f} ms", flush=True)
    stalls = sorted(s for r in results for s in r["stalls"])
    srtt = statistics.median(r["srtt"] for r in results)
    failed = sum(r["failed"] for r in results)
    print(f"{len(results)} plane failures ({args.mode}), "
          f"{sum(r['flows'] for r in results)} transfers: {failed} failed, "
          f"{sum(r['flows'] - r['intact'] for r in results)} not delivered intact")
    if stalls:
        q = statistics.quantiles(stalls, n=100, method="inclusive")
        print(f"stall after the failure per flow: median {statistics.median(stalls):.3f} s, "
              f"p99 {q[98]:.3f} s, max {stalls[-1]:.3f} s; median srtt {srtt * 1e3:.0f} ms "
              f"(max stall = {stalls[-1] / srtt:.1f} srtt)")
    wall = time.time() - t0
    print(f"wall time {wall:.0f} s, {sum(r['hops'] for r in results) / wall:,.0f} "
          "packet-hops/s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
