"""Failure: long transfers from pod 0 to pod 3 of a fat-tree k=4; at t = 1 s the busiest
core link into pod 3 fails (the lab's gray failure: both ends drop what they send), at
t = 3 s it comes back. Spray modes ecmp, ev and source in one run, same flows and seed.

What to see: goodput in 50 ms bins. Under ecmp the flows hashed onto the dead link stop
until the controller's probes miss, it reroutes and the sender finds the path again. Under
ev each sender sprays over 64 EVs: the EVs through the dead link lose packets, are retired
within a few RTTs, and the flow goes on over the other paths before the controller acts.
Under source each sender takes its 4 source routes in turn: the switches' label tables
never change, so the controller's reroute cannot help; the sender retires the dead route's
EVs at its first loss there, and a probe brings them back once the link returns.
Host links run at the experiment's rate, fabric links at twice that, so that the three
paths left can carry what the four did.
"""

from __future__ import annotations

from mrclab.experiments import flowstats, metrics, plans, plots
from mrclab.experiments.config import ExperimentError, Options, Setup, simulator_defaults
from mrclab.experiments.plans import Flow, Timed
from mrclab.experiments.records import FabricCounters, FailureEvents, PhaseWithEvents
from mrclab.experiments.validity import Verdict

NAME = "failure"
ENGINES = ("lab", "sim")
TITLE = "Link failure: endpoint EV retirement vs controller reroute"
SPEC = "fattree:k=4"
MODES = ("ecmp", "ev", "source")
DEFAULT_RATE = 1_000_000
BIN_S = 0.05
FAIL_AT, RESTORE_AT = 1.0, 3.0
RECOVERED = 0.5  # a flow is back once no bin carries less than half its pre-failure rate


# The simulator (--engine sim): the link fails 100 us in, probes every 20 us (3 missed:
# a verdict within ~80 us) and a write lands 1 ms after it, so the flows run 1.6 ms
# (quick; 3 ms) and the link comes back after the controller has rerouted.
SIM_TIMES = {True: {"seconds": 1.6e-3, "fail_at": 100e-6, "restore_at": 1.4e-3},
             False: {"seconds": 3e-3, "fail_at": 100e-6, "restore_at": 2.5e-3}}


def setup(opts: Options) -> Setup:
    if opts.incast_n:
        raise ExperimentError("--senders applies to the incast experiment only")
    common = {"modes": list(MODES), "recovered_fraction": RECOVERED, "src_pod": 0,
              "dst_pod": 3}
    if opts.engine == "sim":
        times = SIM_TIMES[opts.quick]
        sim = {**simulator_defaults(), "probe_interval": 20e-6, "miss_limit": 3}
        return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                     quick=opts.quick, **{**sim, "fabric_rate_bps": 2 * sim["rate_bps"]},
                     params={**common, **times, "bin_s": 5e-6, "warmup_s": 20e-6,
                             "baseline_s": 50e-6, "busiest_window_s": [40e-6, 5e-6]},
                     phases=[(m, 40.0 if opts.quick else 80.0) for m in MODES])
    seconds = 4.5 if opts.quick else 6.0
    return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                 quick=opts.quick, rate_bps=DEFAULT_RATE, fabric_rate_bps=2 * DEFAULT_RATE,
                 queue_depth=64, trim_threshold=8, ecn_threshold=4,
                 probe_interval=0.1, miss_limit=4,  # 50 ms probes flap on this loaded machine
                 params={**common, "seconds": seconds, "fail_at": FAIL_AT,
                         "restore_at": RESTORE_AT, "bin_s": BIN_S, "warmup_s": 0.3,
                         # the busiest link: traffic from 0.6 to 0.1 s before the failure
                         "baseline_s": 0.5, "busiest_window_s": [0.6, 0.1]},
                 phases=[(m, seconds * 2 + 10) for m in MODES])


def traffic(setup: Setup, fabric, seconds: float) -> list[Flow]:
    size = int(setup.link_rate * setup.payload_ceiling(False) * seconds / 8)
    pairs = plans.pod_pairs(fabric, setup.params["src_pod"], setup.params["dst_pod"])
    return [Flow(src, dst, size, seed=setup.seed * 1000 + i)
            for i, (src, dst) in enumerate(pairs)]


def busiest(before: FabricCounters, after: FabricCounters,
            links: list[tuple[str, int, str, int]]) -> tuple:
    """The link among `links` (core, core port, agg) whose core port sent the most bytes."""
    def moved(link):
        core, port = link[2], link[3]
        return after[core][port].tx_bytes - before[core][port].tx_bytes
    return max(links, key=moved)


def run(session, setup: Setup) -> dict:
    p = setup.params
    plan = traffic(setup, session.fabric, p["seconds"])
    dst_aggs = {name for name, sw in session.fabric.switches.items()
                if sw.role == "agg" and sw.pod == p["dst_pod"]}
    links = [link for link in session.core_links() if link[0] in dst_aggs]
    cores = sorted({link[2] for link in links})
    out = {"pairs": [[f.src, f.dst] for f in plan], "size": plan[0].size, "modes": {}}
    for mode in p["modes"]:
        session.progress(mode)
        session.set_spray(mode)
        events = FailureEvents()
        known = len(session.reconvergence())
        result = session.run_flows(mode, plan, timeout=p["seconds"] * 4 + 20,
                                   schedule=_failure(session, p, links, cores, events))
        session.wait_reconvergence(known + 2)  # the link's return is reported a bit later
        session.wait_links_up()
        events.reconvergence = session.reconvergence()[known:]
        out["modes"][mode] = PhaseWithEvents(result, events)
    return out


def verdicts(raw: dict) -> list[Verdict]:
    return [mode.phase.verdict for mode in raw["modes"].values()]


def _failure(session, p: dict, links: list, cores: list[str],
             events: FailureEvents) -> list[Timed]:
    """Fail the link that carried most traffic just before the failure (so that under ecmp
    a flow is surely on it), and restore it; `events` records what happened when."""
    counted: dict = {}
    early, late = p["busiest_window_s"]

    def count(t0: float) -> None:
        counted["before"] = session.counters(cores)

    def pick(t0: float) -> None:
        agg, _, core, _ = busiest(counted["before"], session.counters(cores), links)
        events.link = (core, agg)

    def fail(t0: float) -> None:
        events.failed_at = session.set_link(*events.link, up=False) - t0

    def restore(t0: float) -> None:
        events.restored_at = session.set_link(*events.link, up=True) - t0

    return [Timed(p["fail_at"] - early, count), Timed(p["fail_at"] - late, pick),
            Timed(p["fail_at"], fail), Timed(p["restore_at"], restore)]


def analyse(setup: Setup, raw: dict) -> dict:
    p = setup.params
    width = p["bin_s"]
    result = {"link_rate_bps": setup.link_rate, "modes": {}}
    for mode, record in raw["modes"].items():
        run, ev = record.phase, record.events
        t0 = run.t0
        fail = p["fail_at"] if ev.failed_at is None else ev.failed_at
        series = [flowstats.acked_series(f, t0) for f in run.flows]
        end = max((s[-1][0] for s in series if s), default=0.0)
        flows = []
        total = [0.0] * max(0, int(round(end / width)))
        for f, s in zip(run.flows, series, strict=True):
            bins = metrics.bin_rates(s, 0.0, end, width) if s else []
            for i, v in enumerate(bins):
                total[i] += v
            base = metrics.window_rate(s, max(p["warmup_s"], fail - p["baseline_s"]),
                                       fail) if s else 0.0
            # judged until the link comes back: later dips are not the failure's
            rec = metrics.recovery_time(bins, width, 0.0, fail, base, p["recovered_fraction"],
                                        p["restore_at"] if ev.restored_at is None
                                        else ev.restored_at)
            flows.append({"src": f.src, "dst": f.dst, "baseline_bps": base,
                          "recovery_s": rec, "bins_bps": bins,
                          "retirements": flowstats.retirement_times(f, t0),
                          "timeouts": f.sender.counters.timeouts,
                          "fct_s": flowstats.finish_time(f, t0), "ok": f.ok})
        recs = [fl["recovery_s"] for fl in flows]
        worst = None if any(r is None for r in recs) else max(recs, default=0.0)
        reroute = ev.rerouted_at(t0)
        result["modes"][mode] = {
            "failed_at": fail, "restored_at": ev.restored_at,
            "link": None if ev.link is None else list(ev.link),
            "reroute_at": reroute,
            "reroute_after_s": None if reroute is None else reroute - fail,
            "recovery_s": worst, "flows": flows, "total_bins_bps": total, "bin_s": width,
            "first_retirement_s": min((t for fl in flows for t in fl["retirements"]
                                       if t >= fail), default=None),
            "verdict": run.verdict}
    return result


def tables(analysis: dict) -> dict[str, list[dict]]:
    summary = [{"mode": m, "failed_link": "-".join(a["link"] or []),
                "failed_at_s": a["failed_at"], "controller_reroute_after_s": a["reroute_after_s"],
                "recovery_s": a["recovery_s"],
                "first_retirement_after_s": None if a["first_retirement_s"] is None
                else a["first_retirement_s"] - a["failed_at"],
                "flows_affected": sum(1 for f in a["flows"] if (f["recovery_s"] or 0) > 0),
                "timeouts": sum(f["timeouts"] or 0 for f in a["flows"]),
                "faithful": a["verdict"].faithful}
               for m, a in analysis["modes"].items()]
    summary = [{k: metrics.significant(v) if isinstance(v, float) else v
                for k, v in row.items()} for row in summary]
    bins = []
    for m, a in analysis["modes"].items():
        width = a["bin_s"]
        for i, v in enumerate(a["total_bins_bps"]):
            row = {"mode": m, "t_s": metrics.significant(i * width), "total_bps": round(v)}
            for j, f in enumerate(a["flows"]):
                row[f"flow{j}_bps"] = round(f["bins_bps"][i]) if i < len(f["bins_bps"]) else 0
            bins.append(row)
    flows = [{"mode": m, "src": f["src"], "dst": f["dst"],
              "baseline_bps": round(f["baseline_bps"]), "recovery_s": f["recovery_s"],
              "retirements": len(f["retirements"]), "timeouts": f["timeouts"],
              "fct_s": f["fct_s"]} for m, a in analysis["modes"].items() for f in a["flows"]]
    return {"summary": summary, "flows": flows, "goodput_bins": bins}


def figures(analysis: dict, outdir) -> list[tuple[str, str]]:
    out = []
    for mode, a in analysis["modes"].items():
        width = a["bin_s"]
        scale, unit = metrics.time_unit(len(a["total_bins_bps"]) * width)
        per, rate_unit = metrics.rate_unit(analysis["link_rate_bps"])
        series = {f"{f['src']}->{f['dst']}": ([i * width * scale
                                               for i in range(len(f["bins_bps"]))],
                                              [v / per for v in f["bins_bps"]])
                  for f in a["flows"]}
        events = [(a["failed_at"] * scale, "link fails", "red")]
        if a["reroute_at"] is not None:
            events.append((a["reroute_at"] * scale, "controller rerouted", "purple"))
        if a["restored_at"] is not None:
            events.append((a["restored_at"] * scale, "link back", "green"))
        ticks = {f"{mode} EV retirements": sorted(t * scale for f in a["flows"]
                                                  for t in f["retirements"])}
        out.append(plots.timeline_plot(
            outdir / f"timeline_{mode}.png", series,
            f"goodput per flow ({rate_unit}, {metrics.format_seconds(width)} bins)",
            f"Failure, {mode}: goodput per flow", events, ticks,
            xlabel=f"time since start ({unit})"))
    return out


def goals(setup: Setup, analysis: dict) -> list[dict]:
    ev, ecmp = analysis["modes"].get("ev"), analysis["modes"].get("ecmp")
    out = []
    if ev:
        out.append({"goal": "ev recovers before the controller reroutes",
                    "measured": f"ev back after {_back(ev['recovery_s'])}, controller rerouted "
                                f"after {_s(ev['reroute_after_s'])}",
                    "met": ev["recovery_s"] is not None and ev["reroute_after_s"] is not None
                    and ev["recovery_s"] < ev["reroute_after_s"]})
    if ev and ecmp:
        out.append({"goal": "ev recovers before ecmp (which waits for the controller)",
                    "measured": f"ev {_back(ev['recovery_s'])}, ecmp {_back(ecmp['recovery_s'])} "
                                f"(controller {_s(ecmp['reroute_after_s'])})",
                    "met": ev["recovery_s"] is not None and (
                        ecmp["recovery_s"] is None or ev["recovery_s"] < ecmp["recovery_s"])})
    return out


def _s(value: float | None) -> str:
    return metrics.format_seconds(value)


def _back(recovery: float | None) -> str:
    """A recovery time; None: some flow was still below half its rate when the link came
    back (under ecmp, often two flows the reroute hashed onto one path)."""
    return "not before the link came back" if recovery is None else \
        metrics.format_seconds(recovery)


def sweep_figures(analysis: dict) -> dict[str, float | None]:
    """What a sweep aggregates: per mode, seconds until every flow was back and until the
    controller had rerouted (None: not before the link returned)."""
    out: dict[str, float | None] = {}
    for mode, a in analysis["modes"].items():
        out[f"{mode} recovery_s"] = a["recovery_s"]
        out[f"{mode} reroute_after_s"] = a["reroute_after_s"]
    return out
