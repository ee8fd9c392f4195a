"""Permutation: every host of a fat-tree (the lab's k=4, the simulator's k=8, or --spec) sends
to a distinct host of another pod, all links at one rate; spray modes ecmp, ev, random and
source in one run, same pairs and seed.

What to see: ECMP hashes whole flows onto paths, so some core links carry two flows and
others none (flows at half rate); per-packet spraying (ev, random) fills every path evenly
on average, but a hash (or a draw) puts a window of a few packets unevenly on the paths;
`source` is MRC's own design (paths chosen by the sender): the sender binds each EV to one
of the paths (a source route, `--route`) and takes them in turn, so every path gets the
same share of each window.
Goodput is measured while every flow runs, from a warm-up to the first finish: the
steady state the anchors describe. In the lab, jumbo frames at a few Mb/s make the
emulated RTT 150-250 ms, so slow start and DCTCP's convergence take ~10 RTTs, about 2 s;
the report also gives each flow's whole-transfer goodput (bytes / completion time), start
included.
"""

from __future__ import annotations

from mrclab.experiments import flowstats, metrics, plans, plots
from mrclab.experiments.config import (
    JUMBO_MTU,
    ExperimentError,
    Options,
    Setup,
    parse_seconds,
    simulator_defaults,
)
from mrclab.experiments.plans import Flow
from mrclab.experiments.records import PhaseRecord, PortCounters
from mrclab.experiments.validity import Verdict

NAME = "permutation"
ENGINES = ("lab", "sim")
TITLE = "Permutation traffic: ECMP vs per-packet spraying"
MODES = ("ecmp", "ev", "random", "source")
SPEC = "fattree:k=4"
# per link, jumbo frames: the fastest each target keeps faithful on a 2-core machine
# (docs/experiments.md, "Why the defaults")
DEFAULT_RATE = {"p4emu": 8_000_000, "bmv2": 2_000_000}
WARMUP_S = {True: 1.0, False: 2.0}  # by --quick; ~10 RTTs in the full run
TAKES_DURATION = True  # --duration sets the flows' length


# The simulator (--engine sim): the full run's flows last ~90 RTTs at 100 Gb/s (an RTT
# is ~16 us on k=4), warm-up ~10; --quick keeps k=4 (150 us), the full run is k=8 (128
# flows). ev's windows climb additively from a BDP and reach the marks only after ~750 us:
# the 500 us flows of before measured the climb alone, and hid a cycle of mass marks
# (docs/simulator.md, "Why the datacenter senders and queues are as they are").
SIM_SPEC = {True: "fattree:k=4", False: "fattree:k=8"}
SIM_SECONDS = {True: 150e-6, False: 1.5e-3}
SIM_WARMUP_S = {True: 50e-6, False: 150e-6}
# DCTCP needs its marking threshold K > C * RTT / 7 for full throughput (Alizadeh et al.,
# 2010), and spraying needs more: a sprayed window's packets meet on each hop by chance, so
# its queues come and go with no one flow to blame, and marks at 8 packets held ev's
# windows at the empty fabric's BDP (k=4, 500 us flows: 70.8 % of the link rate; 91.9 %
# with these). K at about half a BDP (~44 packets of 4 KiB at 100 Gb/s), trimming at
# three quarters, a BDP of buffer: 192 KiB per port.
SIM_QUEUES = {"queue_depth": 48, "trim_threshold": 32, "ecn_threshold": 24}
# The lab's, in jumbo frames: a CPU stall of an emulated switch (1-3 frame times) must not
# cross ECN on its own (docs/experiments.md, "Why the defaults")
LAB_QUEUES = {"queue_depth": 64, "trim_threshold": 16, "ecn_threshold": 8}


def setup(opts: Options) -> Setup:
    if opts.incast_n:
        raise ExperimentError("--senders applies to the incast experiment only")
    if opts.engine == "sim":
        seconds = _duration(opts, SIM_SECONDS[opts.quick], SIM_WARMUP_S[opts.quick])
        return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SIM_SPEC[opts.quick],
                     seed=opts.seed, quick=opts.quick,
                     **{**simulator_defaults(), **SIM_QUEUES},
                     params={"modes": list(MODES), "seconds": seconds,
                             "warmup_s": SIM_WARMUP_S[opts.quick],
                             "min_window_s": seconds / 10},
                     phases=[(m, 15.0 if opts.quick else 600.0) for m in MODES])
    seconds = _duration(opts, 4.0 if opts.quick else 10.0, WARMUP_S[opts.quick])
    return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                 quick=opts.quick, rate_bps=DEFAULT_RATE[opts.target], mtu=JUMBO_MTU,
                 **LAB_QUEUES,
                 params={"modes": list(MODES), "seconds": seconds,
                         "warmup_s": WARMUP_S[opts.quick]},
                 phases=[(m, seconds + 8) for m in MODES])


def _duration(opts: Options, default: float, warmup: float) -> float:
    """The flows' length: `--duration`, which must outlast the warm-up, or `default`."""
    if opts.duration is None:
        return default
    seconds = parse_seconds("--duration", opts.duration)
    if seconds <= 2 * warmup:
        raise ExperimentError(f"--duration {opts.duration}: the flows must run longer than "
                              f"twice the warm-up of {warmup:g} s, which is not measured")
    return seconds


def traffic(setup: Setup, fabric, seconds: float) -> list[Flow]:
    """The seeded cross-pod permutation, each flow sized to last `seconds` at full rate."""
    size = int(setup.link_rate * setup.payload_ceiling(True) * seconds / 8)
    pairs = plans.cross_group_permutation(fabric, setup.seed)
    return [Flow(src, dst, size, seed=setup.seed * 1000 + i)
            for i, (src, dst) in enumerate(pairs)]


def run(session, setup: Setup) -> dict:
    plan = traffic(setup, session.fabric, setup.params["seconds"])
    out = {"pairs": [[f.src, f.dst] for f in plan], "size": plan[0].size,
           "core_links": plans.core_links(session.fabric), "modes": {}}
    for mode in setup.params["modes"]:
        session.progress(mode)
        session.set_spray(mode)
        out["modes"][mode] = session.run_flows(mode, plan,
                                               timeout=setup.params["seconds"] * 4 + 20)
    return out


def verdicts(raw: dict) -> list[Verdict]:
    return [run.verdict for run in raw["modes"].values()]


def core_load(run: PhaseRecord, links: list, rate: float) -> list[dict]:
    """Utilisation of each agg-core link, both directions, over the run."""
    seconds = max(run.end - run.t0, 1e-3)
    rows = []
    for agg, agg_port, core, core_port in links:
        up = run.counters.get(agg, {}).get(agg_port, PortCounters())
        down = run.counters.get(core, {}).get(core_port, PortCounters())
        rows.append({"link": f"{agg}-{core}",
                     "up": metrics.link_utilisation(up.tx_bytes, seconds, rate),
                     "down": metrics.link_utilisation(down.tx_bytes, seconds, rate)})
    return rows


def analyse(setup: Setup, raw: dict) -> dict:
    rate = setup.link_rate
    result = {"link_rate_bps": rate, "ceiling": setup.payload_ceiling(True), "modes": {}}
    for mode, run in raw["modes"].items():
        goodputs, window = flowstats.window_goodputs(
            run.flows, run.t0, setup.params["warmup_s"],
            setup.params.get("min_window_s", flowstats.MIN_WINDOW_S))
        norm = [g / rate for g in goodputs if g is not None]
        fcts = [flowstats.finish_time(f, run.t0) for f in run.flows]
        transfer = [f.size * 8 / f.sender.completion_time_s / rate
                    for f in run.flows if f.ok]
        result["modes"][mode] = {
            "window_s": window, "normalised": norm, "stats": metrics.describe(norm),
            "transfer_stats": metrics.describe(transfer),
            "flows": [{"src": f.src, "dst": f.dst, "goodput_bps": g,
                       "normalised": None if g is None else g / rate, "fct_s": fct,
                       "retransmits": f.sender.counters.retransmits,
                       "timeouts": f.sender.counters.timeouts, "ok": f.ok}
                      for f, g, fct in zip(run.flows, goodputs, fcts, strict=True)],
            "failed_flows": sum(1 for f in run.flows if not f.ok),
            "core_load": core_load(run, raw["core_links"], setup.fabric_rate),
            "verdict": run.verdict}
    return result


def tables(analysis: dict) -> dict[str, list[dict]]:
    summary = [{"mode": m, **{k: round(v, 4) for k, v in a["stats"].items()},
                **{f"transfer_{k}": round(a["transfer_stats"][k], 4) for k in ("mean", "min")
                   if k in a["transfer_stats"]},
                "failed_flows": a["failed_flows"], "faithful": a["verdict"].faithful}
               for m, a in analysis["modes"].items()]
    flows = [{"mode": m, **{k: (round(v, 4) if isinstance(v, float) else v)
                            for k, v in f.items()}}
             for m, a in analysis["modes"].items() for f in a["flows"]]
    load = [{"mode": m, "link": r["link"], "up": round(r["up"], 4), "down": round(r["down"], 4)}
            for m, a in analysis["modes"].items() for r in a["core_load"]]
    return {"summary": summary, "flows": flows, "core_load": load}


def figures(analysis: dict, outdir) -> list[tuple[str, str]]:
    modes = analysis["modes"]
    return [
        plots.cdf_plot(outdir / "goodput_cdf.png",
                       {m: a["normalised"] for m, a in modes.items()},
                       "per-flow goodput / link rate", "Permutation: per-flow goodput",
                       marks={"payload ceiling": analysis["ceiling"]}),
        plots.grouped_bars(outdir / "core_load.png",
                           {m: {r["link"]: (r["up"] + r["down"]) / 2
                                for r in a["core_load"]} for m, a in modes.items()},
                           "mean utilisation (both directions)",
                           "Permutation: load of each agg-core link"),
    ]


def goals(setup: Setup, analysis: dict) -> list[dict]:
    modes = analysis["modes"]
    out = []
    ev, ecmp = modes.get("ev", {}).get("stats", {}), modes.get("ecmp", {}).get("stats", {})
    transfer = modes.get("ev", {}).get("transfer_stats", {})
    if ev.get("n"):
        out.append({"goal": "ev mean goodput >= 90 % of the link rate",
                    "measured": f"{ev['mean']:.1%} (payload ceiling "
                                f"{analysis['ceiling']:.1%}; whole transfers, start "
                                f"included: {transfer.get('mean', 0):.1%})",
                    "met": ev["mean"] >= 0.9})
        failed = modes["ev"]["failed_flows"]  # no goodput: not in the minimum, but not met
        out.append({"goal": "ev minimum goodput >= 80 % of the link rate",
                    "measured": f"{ev['min']:.1%} (whole transfers: "
                                f"{transfer.get('min', 0):.1%})"
                                + (f"; {failed} transfer(s) failed" if failed else ""),
                    "met": ev["min"] >= 0.8 and not failed})
    if ev.get("n") and ecmp.get("n"):
        out.append({"goal": "ecmp below ev (mean and minimum)",
                    "measured": f"ecmp mean {ecmp['mean']:.1%}, min {ecmp['min']:.1%}",
                    "met": ecmp["mean"] < ev["mean"] and ecmp["min"] < ev["min"]})
    source = modes.get("source", {}).get("stats", {})
    if source.get("n"):  # the anchor: MRC-style spraying reaches ~90 %+
        failed = modes["source"]["failed_flows"]
        out.append({"goal": "source (MRC's source-routed spraying): mean >= 90 %, "
                            "min >= 80 % of the link rate",
                    "measured": f"mean {source['mean']:.1%}, min {source['min']:.1%}"
                                + (f"; {failed} transfer(s) failed" if failed else ""),
                    "met": source["mean"] >= 0.9 and source["min"] >= 0.8 and not failed})
    return out


def sweep_figures(analysis: dict) -> dict[str, float | None]:
    """What a sweep aggregates: each mode's mean and worst per-flow goodput (share of the
    link rate) and its failed flows."""
    out: dict[str, float | None] = {}
    for mode, a in analysis["modes"].items():
        out[f"{mode} mean"] = a["stats"].get("mean")
        out[f"{mode} min"] = a["stats"].get("min")
        out[f"{mode} failed"] = a["failed_flows"]
    return out
