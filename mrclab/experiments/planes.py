"""Planes: a multi-plane fat-tree (2 planes of k=4 unless --spec says otherwise; every host
has one NIC per plane) under the permutation of the permutation experiment, ev spraying, in
one run: the senders use one plane, then all planes, then all with plane 1 failing
3 s in (2 s with --quick; all of its agg-core links).

What to see: each plane adds what a host can send; when a whole plane fails the senders
retire its EVs and carry on over the others at about their rate. Goodput is normalised
to one plane's link rate (P planes: up to P).
"""

from __future__ import annotations

from mrclab.experiments import flowstats, metrics, permutation, plans, plots
from mrclab.experiments.config import JUMBO_MTU, ExperimentError, Options, Setup, simulator_defaults
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.records import FailureEvents, PhaseWithEvents
from mrclab.experiments.validity import Verdict
from mrclab.fabric.spec import parse_spec

NAME = "planes"
ENGINES = ("lab", "sim")
TITLE = "Multi-plane fabric: 1 plane vs all, and a plane failing"
SPEC = "multiplane:planes=2,base=fattree:k=4"
# The permutation's frames, queues and thresholds; with two planes the fabric carries
# twice its packets, so half its rate per link
DEFAULT_RATE = {target: bps // 2 for target, bps in permutation.DEFAULT_RATE.items()}
CASES = ("1 plane", "all planes", "all planes, 1 failed")
MODES: tuple[str, ...] = ()  # its cases are not --modes: each needs the one before
# after the failure, the share of the surviving planes' capacity flows keep (issue 29)
SURVIVING_SHARE = 0.85
BIN_S = 0.1
# by --quick: the flows' length at the link rate, the warm-up (the permutation's: ~10
# RTTs), when the plane fails, and how long after it the surviving rate is measured from
LAB_TIMES = {True: {"seconds": 5.0, "warmup_s": 1.0, "fail_at": 2.0, "settle_s": 1.0},
             False: {"seconds": 10.0, "warmup_s": 2.0, "fail_at": 3.0, "settle_s": 1.5}}


# The simulator (--engine sim): flows of 300 us (quick; 800 us) at 100 Gb/s per plane,
# plane 1 failing 100 us in
SIM_SECONDS = {True: 300e-6, False: 800e-6}


def setup(opts: Options) -> Setup:
    if opts.incast_n:
        raise ExperimentError("--senders applies to the incast experiment only")
    if opts.engine == "sim":
        seconds = SIM_SECONDS[opts.quick]
        return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                     quick=opts.quick, **{**simulator_defaults(), **permutation.SIM_QUEUES},
                     params={"cases": list(CASES), "seconds": seconds, "fail_at": 100e-6,
                             "failed_plane": 1, "warmup_s": 50e-6, "bin_s": 10e-6,
                             "settle_s": 50e-6,
                             "min_window_s": seconds / 10},
                     phases=[(c, 60.0) for c in CASES])
    times = LAB_TIMES[opts.quick]
    return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                 quick=opts.quick, rate_bps=DEFAULT_RATE[opts.target], mtu=JUMBO_MTU,
                 **permutation.LAB_QUEUES,
                 params={"cases": list(CASES), **times, "failed_plane": 1, "bin_s": BIN_S},
                 phases=[(c, times["seconds"] * 2 + 12) for c in CASES])


def traffic(setup: Setup, fabric, seconds: float, planes: tuple[int, ...] | None = None
            ) -> list[Flow]:
    """The cross-pod permutation; each flow sized for `seconds` over `planes` (all: None)."""
    count = len(planes) if planes else len(plans.fabric_planes(fabric))
    size = int(setup.link_rate * count * setup.payload_ceiling(True) * seconds / 8)
    return [Flow(src, dst, size, seed=setup.seed * 1000 + i, planes=planes)
            for i, (src, dst) in enumerate(plans.cross_group_permutation(fabric, setup.seed))]


def run(session, setup: Setup) -> dict:
    p = setup.params
    all_planes = plans.fabric_planes(session.fabric)
    plane_links = [(core, agg) for agg, _, core, _
                   in plans.core_links_on_plane(session.fabric, p["failed_plane"])]
    session.set_spray("ev")
    out: dict = {"cases": {}}
    for case in p["cases"]:
        session.progress(case)
        planes = (all_planes[0],) if case == "1 plane" else None
        plan = traffic(setup, session.fabric, p["seconds"], planes)
        events = FailureEvents()

        def fail(t0: float, events=events) -> None:
            events.failed_at = session.now() - t0
            events.all_failed_at = session.set_links(plane_links, up=False) - t0

        schedule = [Timed(p["fail_at"], fail)] if "failed" in case else []
        try:
            result = session.run_flows(case.replace(" ", "-").replace(",", ""), plan,
                                       timeout=p["seconds"] * 6 + 20, schedule=schedule)
        finally:
            if "failed" in case:
                session.set_links(plane_links, up=True)
                session.wait_links_up(30)
        out["cases"][case] = PhaseWithEvents(result, events)
    return out


def verdicts(raw: dict) -> list[Verdict]:
    return [case.phase.verdict for case in raw["cases"].values()]


def analyse(setup: Setup, raw: dict) -> dict:
    rate = setup.link_rate
    p = setup.params
    min_window = p.get("min_window_s", flowstats.MIN_WINDOW_S)
    result = {"link_rate_bps": rate, "planes": len(plans.fabric_planes(parse_spec(setup.spec))),
              "cases": {}}
    for case, record in raw["cases"].items():
        run = record.phase
        goodputs, window = flowstats.window_goodputs(run.flows, run.t0, p["warmup_s"],
                                                     min_window)
        norm = [g / rate for g in goodputs if g is not None]
        after: list[float] = []
        if "failed" in case:  # once the senders have left the failed plane
            late, _ = flowstats.window_goodputs(run.flows, run.t0,
                                                p["fail_at"] + p.get("settle_s", 0.0),
                                                min_window)
            after = [g / rate for g in late if g is not None]
        series = [flowstats.acked_series(f, run.t0) for f in run.flows]
        end = max((s[-1][0] for s in series if s), default=0.0)
        total = [0.0] * max(0, int(round(end / setup.params["bin_s"])))
        for s in series:
            for i, v in enumerate(metrics.bin_rates(s, 0.0, end, setup.params["bin_s"])
                                  if s else []):
                total[i] += v
        result["cases"][case] = {
            "normalised": norm, "stats": metrics.describe(norm), "window_s": window,
            "after_failure": metrics.describe(after) if after else {},
            "failed_at": record.events.failed_at,
            "total_bins_per_flow": [v / rate / max(1, len(series)) for v in total],
            "bin_s": setup.params["bin_s"],
            "failed_flows": sum(1 for f in run.flows if not f.ok),
            "retirements": sum(len(flowstats.retirement_times(f, run.t0))
                               for f in run.flows),
            "verdict": run.verdict}
    return result


def tables(analysis: dict) -> dict[str, list[dict]]:
    return {"summary": [{"case": c, **{k: round(v, 4) for k, v in a["stats"].items()},
                         "ev_retirements": a["retirements"],
                         "failed_flows": a["failed_flows"],
                         "faithful": a["verdict"].faithful}
                        for c, a in analysis["cases"].items()]}


def figures(analysis: dict, outdir) -> list[tuple[str, str]]:
    cases = analysis["cases"]
    planes = analysis.get("planes", 2)
    out = [plots.cdf_plot(outdir / "goodput_cdf.png", {c: [min(v / planes, 1.05) for v in
                                                             a["normalised"]]
                                                         for c, a in cases.items()},
                          f"per-flow goodput / ({planes} x one plane's link rate)",
                          "Planes: per-flow goodput")]
    width = next(iter(cases.values()))["bin_s"] if cases else BIN_S
    longest = max((len(a["total_bins_per_flow"]) for a in cases.values()), default=1)
    scale, unit = metrics.time_unit(longest * width)
    series = {c: ([i * width * scale for i in range(len(a["total_bins_per_flow"]))],
                  a["total_bins_per_flow"]) for c, a in cases.items()}
    failed = [a["failed_at"] for a in cases.values() if a["failed_at"] is not None]
    events = [(failed[0] * scale, "plane 1 fails", "red")] if failed else []
    out.append(plots.timeline_plot(outdir / "timeline.png", series,
                                   "mean goodput per flow / one plane's rate",
                                   "Planes: goodput over time", events,
                                   xlabel=f"time since start ({unit})"))
    return out


def goals(setup: Setup, analysis: dict) -> list[dict]:
    c = analysis["cases"]
    planes = analysis.get("planes", 2)
    one, every = c.get("1 plane", {}).get("stats", {}), c.get("all planes", {}).get("stats", {})
    failed = c.get("all planes, 1 failed", {})
    out = []
    if one.get("n") and every.get("n"):
        want = 0.75 * planes
        out.append({"goal": f"(lab's own) {planes} planes carry >= {want:g}x what 1 plane does",
                    "measured": f"{every['mean'] / one['mean']:.2f}x (mean {every['mean']:.2f} "
                                f"vs {one['mean']:.2f} of one plane's rate)",
                    "met": every["mean"] >= want * one["mean"]})
    after = failed.get("after_failure", {})
    if after.get("n") and planes > 1:
        want = SURVIVING_SHARE * (planes - 1)
        out.append({"goal": f"with 1 of {planes} planes failed, flows keep >= "
                            f"{SURVIVING_SHARE:.0%} of the {planes - 1} others' capacity",
                    "measured": f"mean {after['mean']:.2f}, worst {after['min']:.2f} of one "
                                f"plane's rate ({after['mean'] / (planes - 1):.1%})",
                    "met": after["mean"] >= want})
    if failed:
        out.append({"goal": "(lab's own) every flow completes with one plane failed",
                    "measured": f"{failed['failed_flows']} flows failed, "
                                f"{failed['retirements']} EV retirements",
                    "met": failed["failed_flows"] == 0})
    return out


def sweep_figures(analysis: dict) -> dict[str, float | None]:
    """What a sweep aggregates: per case the mean and worst per-flow goodput (share of one
    plane's link rate)."""
    out: dict[str, float | None] = {}
    for case, a in analysis["cases"].items():
        out[f"{case} mean"] = a["stats"].get("mean")
        out[f"{case} min"] = a["stats"].get("min")
    return out
