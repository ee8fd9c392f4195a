"""Failover at scale: mid-permutation on a multi-plane fat-tree (8 planes of k=8 unless
--spec says otherwise; every host has one NIC per plane), a core link of plane 0 fails, and
once the controller has rerouted around it, the whole of plane 1 fails. Spray modes ev and
ecmp, same flows and seed. The simulator only: the lab cannot hold 8 planes.

What to see: the fabric's goodput over time. Under ev each sender sprays over 64 EVs per
plane: the EVs through the dead link, then those of the dead plane, lose packets, are
retired within a few RTTs, and the flows go on over what is left, long before the
controller's probes reach a verdict and its writes land. Under ecmp every packet a sender
puts on a plane takes its flow's one hashed path there: a flow hashed through the dead link
loses that plane's share until the controller rewrites the groups. Its other planes carry
on, since a NIC per plane is itself a spray, and a dead plane is left by EV retirement as
under ev.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mrclab.experiments import flowstats, metrics, plans, plots
from mrclab.experiments.config import (
    ExperimentError,
    Options,
    Setup,
    parse_seconds,
    simulator_defaults,
)
from mrclab.experiments.failure import busiest
from mrclab.experiments.permutation import SIM_QUEUES
from mrclab.experiments.planes import traffic as planes_traffic
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.records import FailureEvents, PhaseRecord
from mrclab.experiments.validity import Verdict
from mrclab.fabric.spec import parse_spec
from mrclab.jsonrecords import flat

NAME = "failover"
ENGINES = ("sim",)
TITLE = "Failover at scale: a core link, then a whole plane"
SPEC = "multiplane:planes=8,base=fattree:k=8"
QUICK_SPEC = "multiplane:planes=2,base=fattree:k=4"
MODES = ("ev", "ecmp")
RESTORED = 0.95  # of the capacity that survives the failure (issue 29, goal 2)
LINK_PLANE, FAILED_PLANE = 0, 1
# Virtual times. The link fails once ECMP's start is over: its windows grow into hash
# collisions and shrink again for the first ~0.9 ms (k=4 x 8 planes), and a failure
# inside that dip cannot be told from it. Each flow's rate before a failure is measured
# over the `steady_s` before it. Probes every 20 us (3 missed make a verdict) and a
# controller's write lands 1 ms after it (SimSettings.write_delay_s), so the link is
# rerouted ~1.1 ms after it fails; the plane fails after that, and the flows are sized to
# run past it.
TIMES = {"link_at": 1.0e-3, "plane_at": 2.4e-3, "seconds": 2.8e-3, "steady_s": 300e-6}
WARMUP_S = 40e-6
TAKES_DURATION = True  # --duration: the flows' length
TAKES_FAIL_AT = True  # --fail-at LINK,PLANE: when the failures come (ev needs no ECMP start)


def setup(opts: Options) -> Setup:
    if opts.incast_n:
        raise ExperimentError("--senders applies to the incast experiment only")
    spec = opts.spec or (QUICK_SPEC if opts.quick else SPEC)
    planes = parse_spec(spec).planes
    if planes < 2:
        raise ExperimentError(f"--spec {spec!r}: failover fails a whole plane and needs "
                              "at least 2 (multiplane:planes=P,base=...)")
    sim = {**simulator_defaults(), **SIM_QUEUES, "probe_interval": 20e-6, "miss_limit": 3}
    return Setup(experiment=NAME, target=opts.target, spec=spec, seed=opts.seed,
                 quick=opts.quick, **sim,
                 params={**times(opts), "modes": list(MODES), "bin_s": 10e-6,
                         "warmup_s": WARMUP_S,
                         "busiest_window_s": [40e-6, 5e-6], "link_plane": LINK_PLANE,
                         "failed_plane": FAILED_PLANE},
                 phases=[(m, 120.0 if opts.quick else 3600.0) for m in MODES])


def times(opts: Options) -> dict[str, float]:
    """`TIMES`, with `--fail-at` and `--duration` if given: the link must fail after a
    rate to compare with has been measured, the plane after the link, the flows end after
    both."""
    out = dict(TIMES)
    if opts.fail_at is not None:
        parts = opts.fail_at.split(",")
        if len(parts) != 2:
            raise ExperimentError(f"--fail-at {opts.fail_at!r}: expected LINK,PLANE, "
                                  "e.g. 400us,900us")
        out["link_at"], out["plane_at"] = (parse_seconds("--fail-at", x) for x in parts)
        out["seconds"] = out["plane_at"] + TIMES["seconds"] - TIMES["plane_at"]
    if opts.duration is not None:
        out["seconds"] = parse_seconds("--duration", opts.duration)
    if out["link_at"] < WARMUP_S + out["steady_s"] / 3:
        raise ExperimentError(f"--fail-at {opts.fail_at}: the link must fail after "
                              f"{(WARMUP_S + out['steady_s'] / 3) * 1e6:.0f} us (the rate "
                              "before it is measured from the warm-up's end)")
    if not out["link_at"] < out["plane_at"] < out["seconds"]:
        raise ExperimentError(
            f"failures at {out['link_at'] * 1e6:.0f} and {out['plane_at'] * 1e6:.0f} us with "
            f"flows of {out['seconds'] * 1e6:.0f} us (--fail-at, --duration): the link must "
            "fail before the plane, and the plane before the flows end")
    return out


def traffic(setup: Setup, fabric, seconds: float) -> list[Flow]:
    """The cross-pod permutation over every plane, each flow sized for `seconds`."""
    return planes_traffic(setup, fabric, seconds)


@dataclass(slots=True)
class FailoverRun:
    """One mode's phase and what its two failures did (each with the controller's
    records)."""

    phase: PhaseRecord = flat()
    link: FailureEvents = field(default_factory=FailureEvents)
    plane: FailureEvents = field(default_factory=FailureEvents)


def run(session, setup: Setup) -> dict:
    p = setup.params
    fabric = session.fabric
    plan = traffic(setup, fabric, p["seconds"])
    candidates = plans.core_links_on_plane(fabric, p["link_plane"])
    plane_links = [(core, agg) for agg, _, core, _
                   in plans.core_links_on_plane(fabric, p["failed_plane"])]
    out: dict = {"pairs": [[f.src, f.dst] for f in plan], "size": plan[0].size,
                 "planes": len(plans.fabric_planes(fabric)), "modes": {}}
    for mode in p["modes"]:
        session.progress(mode)
        session.set_spray(mode)
        link, plane = FailureEvents(), FailureEvents()
        known = len(session.reconvergence())
        phase = session.run_flows(mode, plan, timeout=p["seconds"] * 6,
                                  schedule=_failures(session, p, candidates, plane_links,
                                                     link, plane))
        link.reconvergence = plane.reconvergence = session.reconvergence()[known:]
        out["modes"][mode] = FailoverRun(phase, link, plane)
    return out


def _failures(session, p: dict, candidates: list, plane_links: list[tuple[str, str]],
              link: FailureEvents, plane: FailureEvents) -> list[Timed]:
    """The busiest core link of the link's plane just before it fails (so that under ecmp
    some flow is surely hashed through it), then every agg-core link of the failed plane."""
    counted: dict = {}
    early, late = p["busiest_window_s"]
    cores = sorted({link[2] for link in candidates})

    def count(t0: float) -> None:
        counted["before"] = session.counters(cores)

    def fail_link(t0: float) -> None:
        agg, _, core, _ = busiest(counted["before"], session.counters(cores), candidates)
        link.link = (core, agg)
        link.failed_at = session.set_link(core, agg, up=False) - t0

    def fail_plane(t0: float) -> None:
        plane.failed_at = session.now() - t0
        plane.all_failed_at = session.set_links(plane_links, up=False) - t0

    return [Timed(p["link_at"] - early, count), Timed(p["link_at"] - late, fail_link),
            Timed(p["plane_at"], fail_plane)]


def verdicts(raw: dict) -> list[Verdict]:
    return [run.phase.verdict for run in raw["modes"].values()]


def surviving_share(hosts: int, planes: int, planes_failed: int) -> float:
    """The share of the permutation's capacity (every NIC at its link rate) the fabric
    keeps with one core link down (both directions: one link rate out of its pod and one
    into it, on a fat-tree with no more than full bisection) and `planes_failed` planes."""
    return (planes - planes_failed) / planes - 2 / (hosts * planes)


def analyse(setup: Setup, raw: dict) -> dict:
    p = setup.params
    width = p["bin_s"]
    planes = raw["planes"]
    hosts = len(raw["pairs"])
    result = {"link_rate_bps": setup.link_rate, "planes": planes, "hosts": hosts,
              "bin_s": width, "modes": {}}
    for mode, record in raw["modes"].items():
        run = record.phase
        t0 = run.t0
        series = [flowstats.acked_series(f, t0) for f in run.flows]
        end = max((s[-1][0] for s in series if s), default=0.0)
        finishes = [flowstats.finish_time(f, t0) for f in run.flows]
        first_done = min((t for t in finishes if t is not None), default=end)
        capacity = hosts * planes * setup.link_rate
        flow_bins = [metrics.bin_rates(s, 0.0, end, width) if s else [] for s in series]
        total = [0.0] * max(0, int(round(end / width)))
        for bins in flow_bins:
            for i, v in enumerate(bins):
                total[i] += v
        share = [v / capacity for v in total]
        link_at = p["link_at"] if record.link.failed_at is None else record.link.failed_at
        plane_at = p["plane_at"] if record.plane.failed_at is None else record.plane.failed_at
        steady_from = max(p["warmup_s"], link_at - p["steady_s"])
        baseline = _mean(share, steady_from, link_at, width)
        link_reroute = record.link.rerouted_at(t0)
        plane_reroute = _plane_rerouted_at(record.plane, t0)
        stages = {}
        for stage, at, until, failed_planes, reroute in (
                ("link", link_at, plane_at, 0, link_reroute),
                ("plane", plane_at, first_done, 1, plane_reroute)):
            target = surviving_share(hosts, planes, failed_planes)
            until = min(until, end)  # an interrupted run ends early
            restored = None if baseline is None or until <= at else metrics.recovery_time(
                share, width, 0.0, at, baseline * target, RESTORED, until)
            stages[stage] = {"at": at, "until": until, "surviving_share": target,
                             "reached": at < end, "restored_s": restored,
                             "mean_after": _mean(share, at, until, width),
                             "reroute_after_s": None if reroute is None else reroute - at}
        stalled = _stalled_flows(flow_bins, width, steady_from, link_at,
                                 plane_at if link_reroute is None else link_reroute, plane_at)
        result["modes"][mode] = {
            "baseline": baseline, "stages": stages, "share_bins": share, "end_s": end,
            "link": None if record.link.link is None else list(record.link.link),
            "flows_hit_by_link": stalled,
            "retirements": sum(len(flowstats.retirement_times(f, t0)) for f in run.flows),
            "timeouts": sum(f.sender.counters.timeouts or 0 for f in run.flows),
            "failed_flows": sum(1 for f in run.flows if not f.ok),
            "verdict": run.verdict}
    return result


def _mean(share: list[float], start: float, end: float, width: float) -> float | None:
    window = share[int(round(start / width)):int(round(end / width))]
    return sum(window) / len(window) if window else None


def _plane_rerouted_at(events: FailureEvents, t0: float) -> float | None:
    """When the controller had rewritten the fabric around the last of the plane's links."""
    if events.failed_at is None:
        return None
    down = [e.programmed_at - t0 for e in events.reconvergence
            if e.status == "down" and e.programmed_at - t0 >= events.failed_at]
    return max(down, default=None)


def _stalled_flows(flow_bins: list[list[float]], width: float, steady_from: float,
                   fail_at: float, until: float, limit: float) -> list[dict]:
    """Flows that lost a share of their rate when the link failed: below RESTORED of their
    own rate before it (from `steady_from`), from the failure to `until` (the controller's
    reroute); with when each got it back (looked for until `limit`, the next failure)."""
    out = []
    for i, bins in enumerate(flow_bins):
        before = _mean(bins, steady_from, fail_at, width)
        after = _mean(bins, fail_at + 2 * width, until, width)
        if not before or after is None or after >= RESTORED * before:
            continue
        back = metrics.recovery_time(bins, width, 0.0, fail_at, before, RESTORED, limit)
        out.append({"flow": i, "rate_before": before, "share_kept": after / before,
                    "back_after_s": back})
    return out


def tables(analysis: dict) -> dict[str, list[dict]]:
    summary = []
    for mode, a in analysis["modes"].items():
        for stage, s in a["stages"].items():
            summary.append({"mode": mode, "failure": stage,
                            "baseline": metrics.significant(a["baseline"] or 0.0),
                            "surviving_share": metrics.significant(s["surviving_share"]),
                            "mean_after": None if s["mean_after"] is None
                            else metrics.significant(s["mean_after"]),
                            "restored_after_s": s["restored_s"],
                            "controller_reroute_after_s": s["reroute_after_s"],
                            "flows_hit": len(a["flows_hit_by_link"]) if stage == "link"
                            else None,
                            "retirements": a["retirements"], "timeouts": a["timeouts"],
                            "failed_flows": a["failed_flows"],
                            "faithful": a["verdict"].faithful})
    bins = [{"mode": m, "t_s": metrics.significant(i * analysis["bin_s"]),
             "share": round(v, 4)}
            for m, a in analysis["modes"].items() for i, v in enumerate(a["share_bins"])]
    return {"summary": summary, "goodput_bins": bins}


def figures(analysis: dict, outdir) -> list[tuple[str, str]]:
    width = analysis["bin_s"]
    modes = analysis["modes"]
    longest = max((len(a["share_bins"]) for a in modes.values()), default=1)
    scale, unit = metrics.time_unit(longest * width)
    series = {m: ([i * width * scale for i in range(len(a["share_bins"]))], a["share_bins"])
              for m, a in modes.items()}
    events = []
    if modes:
        first = next(iter(modes.values()))["stages"]
        events.append((first["link"]["at"] * scale, "core link fails", "red"))
        events.append((first["plane"]["at"] * scale, "plane 1 fails", "darkred"))
        for m, a in modes.items():
            reroute = a["stages"]["link"]["reroute_after_s"]
            if reroute is not None:
                events.append(((a["stages"]["link"]["at"] + reroute) * scale,
                               f"controller rerouted the link ({m})", "grey"))
    return [plots.timeline_plot(outdir / "timeline.png", series,
                                "goodput / every NIC at its link rate",
                                f"Failover on {analysis['planes']} planes: goodput over time",
                                events, xlabel=f"time since start ({unit})")]


def goals(setup: Setup, analysis: dict) -> list[dict]:
    out = []
    ev, ecmp = analysis["modes"].get("ev"), analysis["modes"].get("ecmp")
    if ev is not None and ev["baseline"] is not None:
        for stage, what in (("link", "a core link"), ("plane", "a whole plane")):
            s = ev["stages"][stage]
            restored, reroute = s["restored_s"], s["reroute_after_s"]
            goal = (f"ev: after {what} fails, >= {RESTORED:.0%} of the surviving capacity "
                    "is back before the controller reroutes")
            if not s["reached"]:
                out.append({"goal": goal, "met": False,
                            "measured": f"not measured: the run ended at {_us(ev['end_s'])}, "
                                        f"before the failure at {_us(s['at'])}"})
                continue
            out.append({
                "goal": goal,
                "measured": f"{_us(restored)} after the failure (controller: "
                            f"{_us(reroute, 'after the flows')}); mean {s['mean_after'] or 0:.3f} of capacity "
                            f"vs {ev['baseline']:.3f} before, x {s['surviving_share']:.3f} "
                            "surviving",
                "met": restored is not None and (reroute is None or restored < reroute)})
    if ecmp is not None:
        hit = ecmp["flows_hit_by_link"]
        reroute = ecmp["stages"]["link"]["reroute_after_s"]
        waited = [f for f in hit if f["back_after_s"] is None
                  or (reroute is not None and f["back_after_s"] >= reroute - setup.params["bin_s"])]
        out.append({
            "goal": "ecmp: flows hashed through the failed link stay short of their rate "
                    "until the controller reroutes",
            "measured": f"{len(hit)} flows hit, keeping "
                        f"{min((f['share_kept'] for f in hit), default=1.0):.0%}-"
                        f"{max((f['share_kept'] for f in hit), default=1.0):.0%} of their rate; "
                        f"{len(waited)} back only after the controller "
                        f"({_us(reroute, 'after the flows')})",
            "met": bool(hit) and len(waited) == len(hit)})
    return out


def _us(seconds: float | None, none: str = "never") -> str:
    return none if seconds is None else f"{seconds * 1e6:.0f} us"


def sweep_figures(analysis: dict) -> dict[str, float | None]:
    """What a sweep aggregates: per mode and failure, how long until the surviving capacity
    was back (s) and the mean share of capacity after it."""
    out: dict[str, float | None] = {}
    for mode, a in analysis["modes"].items():
        for stage, s in a["stages"].items():
            out[f"{mode} {stage} restored s"] = s["restored_s"]
            out[f"{mode} {stage} mean after"] = s["mean_after"]
    return out
