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

import time

from experiments import flowstats, metrics, plans, plots
from experiments.config import ExperimentError, Options, Setup
from experiments.plans import Flow

NAME = "failure"
ENGINES = ("lab",)  # its failures are timed in wall-clock time (a thread)
TITLE = "Link failure: endpoint EV retirement vs controller reroute"
SPEC = "fattree:k=4"
MODES = ("ecmp", "ev", "source")
DEFAULT_RATE = 1_000_000
BIN_S = 0.05
FAIL_AT, RESTORE_AT = 1.0, 3.0
RECOVERED = 0.5  # a flow is back once no bin carries less than half its pre-failure rate


def setup(opts: Options) -> Setup:
    if opts.incast_n:
        raise ExperimentError("--senders applies to the incast experiment only")
    seconds = 4.5 if opts.quick else 6.0
    return Setup(experiment=NAME, target=opts.target, spec=SPEC, seed=opts.seed,
                 quick=opts.quick, rate_bps=DEFAULT_RATE, fabric_rate_bps=2 * DEFAULT_RATE,
                 queue_depth=64, trim_threshold=8, ecn_threshold=4,
                 probe_interval=0.1, miss_limit=4,  # 50 ms probes flap on this loaded machine
                 params={"modes": list(MODES), "seconds": seconds, "fail_at": FAIL_AT,
                         "restore_at": RESTORE_AT, "bin_s": BIN_S,
                         "recovered_fraction": RECOVERED, "src_pod": 0, "dst_pod": 3},
                 phases=[(m, seconds * 2 + 10) for m in MODES])


def traffic(setup: Setup, fabric, seconds: float) -> list[Flow]:
    size = int(setup.link_rate * setup.payload_ceiling(False) * seconds / 8)
    pairs = plans.pod_pairs(fabric, setup.params["src_pod"], setup.params["dst_pod"])
    return [Flow(src, dst, size, seed=setup.seed * 1000 + i)
            for i, (src, dst) in enumerate(pairs)]


def busiest(before: dict, after: dict, links: list[tuple[str, int, str, int]]) -> tuple:
    """The link among `links` (core, core port, agg) whose core port sent the most bytes."""
    def moved(link):
        core, port = link[2], link[3]
        return after[core][port]["tx_bytes"] - before[core][port]["tx_bytes"]
    return max(links, key=moved)


def run(session, setup: Setup) -> dict:
    from experiments.live.session import sleep_until  # live helper, kept out of analysis

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
        events: dict = {}
        known = len(session.reconvergence())

        def during(t0: float, events=events) -> None:
            # pick the link carrying most traffic just before the failure, so that under
            # ecmp a flow is surely on it
            sleep_until(t0 + p["fail_at"] - 0.6)
            before = session.counters(cores)
            sleep_until(t0 + p["fail_at"] - 0.1)
            agg, _, core, _ = busiest(before, session.counters(cores), links)
            sleep_until(t0 + p["fail_at"])
            events["link"] = [core, agg]
            events["failed_at"] = session.set_link(core, agg, up=False) - t0
            sleep_until(t0 + p["restore_at"])
            events["restored_at"] = session.set_link(core, agg, up=True) - t0

        result = session.run_flows(mode, plan, timeout=p["seconds"] * 4 + 20, during=during)
        deadline = time.monotonic() + 20
        while len(session.reconvergence()) < known + 2 and time.monotonic() < deadline:
            time.sleep(0.2)  # the controller reports the link's return a little later
        session.wait_links_up()
        events["reconvergence"] = [
            {**e, "at": e["detected_at"] - result["t0"]}
            for e in session.reconvergence()[known:]]
        out["modes"][mode] = {**result, "events": events}
    return out


def reroute_time(events: dict) -> float | None:
    """Seconds after t0 at which the controller had rerouted around the failed link."""
    core, agg = events.get("link") or (None, None)
    for e in events.get("reconvergence", []):
        ends = {end.split(":")[0] for end in e["link"].split("-")}
        if ends == {core, agg} and e["status"] == "down":
            return e["at"]
    return None


def analyse(setup: Setup, raw: dict) -> dict:
    p = setup.params
    width = p["bin_s"]
    result = {"link_rate_bps": setup.link_rate, "modes": {}}
    for mode, run in raw["modes"].items():
        t0, ev = run["t0"], run["events"]
        fail = ev.get("failed_at", p["fail_at"])
        series = [flowstats.acked_series(f, t0) for f in run["flows"]]
        end = max((s[-1][0] for s in series if s), default=0.0)
        flows = []
        total = [0.0] * max(0, int(round(end / width)))
        for f, s in zip(run["flows"], series, strict=True):
            bins = metrics.bin_rates(s, 0.0, end, width) if s else []
            for i, v in enumerate(bins):
                total[i] += v
            base = metrics.window_rate(s, max(0.3, fail - 0.5), fail) if s else 0.0
            # judged until the link comes back: later dips are not the failure's
            rec = metrics.recovery_time(bins, width, 0.0, fail, base, p["recovered_fraction"],
                                        ev.get("restored_at", p["restore_at"]))
            flows.append({"src": f["src"], "dst": f["dst"], "baseline_bps": base,
                          "recovery_s": rec, "bins_bps": bins,
                          "retirements": flowstats.retirement_times(f, t0),
                          "timeouts": (f["sender"] or {}).get("timeouts"),
                          "fct_s": flowstats.finish_time(f, t0), "ok": flowstats.ok(f)})
        recs = [fl["recovery_s"] for fl in flows]
        worst = None if any(r is None for r in recs) else max(recs, default=0.0)
        reroute = reroute_time(ev)
        result["modes"][mode] = {
            "failed_at": fail, "restored_at": ev.get("restored_at"), "link": ev.get("link"),
            "reroute_at": reroute,
            "reroute_after_s": None if reroute is None else reroute - fail,
            "recovery_s": worst, "flows": flows, "total_bins_bps": total,
            "first_retirement_s": min((t for fl in flows for t in fl["retirements"]
                                       if t >= fail), default=None),
            "verdict": run["verdict"]}
    return result


def tables(analysis: dict) -> dict[str, list[dict]]:
    summary = [{"mode": m, "failed_link": "-".join(a["link"] or []),
                "failed_at_s": a["failed_at"], "controller_reroute_after_s": a["reroute_after_s"],
                "recovery_s": a["recovery_s"],
                "first_retirement_after_s": None if a["first_retirement_s"] is None
                else a["first_retirement_s"] - a["failed_at"],
                "flows_affected": sum(1 for f in a["flows"] if (f["recovery_s"] or 0) > 0),
                "timeouts": sum(f["timeouts"] or 0 for f in a["flows"]),
                "faithful": a["verdict"]["faithful"]}
               for m, a in analysis["modes"].items()]
    bins = []
    for m, a in analysis["modes"].items():
        width = 0.05
        for i, v in enumerate(a["total_bins_bps"]):
            row = {"mode": m, "t_s": round(i * width, 3), "total_bps": round(v)}
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
        width = 0.05
        series = {f"{f['src']}->{f['dst']}": ([i * width for i in range(len(f["bins_bps"]))],
                                              [v / 1e6 for v in f["bins_bps"]])
                  for f in a["flows"]}
        events = [(a["failed_at"], "link fails", "red")]
        if a["reroute_at"] is not None:
            events.append((a["reroute_at"], "controller rerouted", "purple"))
        if a["restored_at"] is not None:
            events.append((a["restored_at"], "link back", "green"))
        ticks = {f"{mode} EV retirements": sorted(t for f in a["flows"]
                                                  for t in f["retirements"])}
        out.append(plots.timeline_plot(outdir / f"timeline_{mode}.png", series,
                                       "goodput per flow (Mb/s, 50 ms bins)",
                                       f"Failure, {mode}: goodput per flow", events, ticks))
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
    return "never" if value is None else f"{value:.2f} s"


def _back(recovery: float | None) -> str:
    """A recovery time; None: some flow was still below half its rate when the link came
    back (under ecmp, often two flows the reroute hashed onto one path)."""
    return "not before the link came back" if recovery is None else f"{recovery:.2f} s"
