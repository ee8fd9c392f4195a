"""Signals: flows from three pods share the receiver's edge port, joining one after the
other (t = 0, 1, 2 s); ev spraying, ECN marking and trimming on.

What to see: how the in-network signals drive the senders. The switch marks ECN CE once
the bottleneck queue reaches the ECN threshold and stamps the deepest queue met (`qmax`)
in every packet; receivers echo both; each sender's window (DCTCP-style) shrinks with the
share of marked packets. Plotted over time: each flow's goodput and window, the ECN echoes
per second and the largest `qmax` echoed. Fairness (Jain) is taken while all flows run.
"""

from __future__ import annotations

from mrclab.experiments import flowstats, metrics, plans, plots
from mrclab.experiments.config import ExperimentError, Options, Setup, simulator_defaults
from mrclab.experiments.plans import Flow
from mrclab.experiments.validity import Verdict

NAME = "signals"
ENGINES = ("lab", "sim")
TITLE = "In-network signals: ECN, qmax and the sender's window"
MODES: tuple[str, ...] = ()
SPEC = "fattree:k=4"
DEFAULT_RATE = 1_000_000
STAGGER_S = 1.0
FLOWS = 3
BIN_S = 0.1


# The simulator (--engine sim): flows join 50 us apart at 100 Gb/s (~5 base RTTs) and share
# the port 100 us (quick; 300 us); fairness is taken from 15 us after the last one joined
SIM_TIMES = {"stagger_s": 50e-6, "bin_s": 5e-6, "settle_s": 15e-6, "min_shared_s": 25e-6}


def setup(opts: Options) -> Setup:
    if opts.incast_n:
        raise ExperimentError("--senders applies to the incast experiment only")
    if opts.engine == "sim":
        together = 100e-6 if opts.quick else 300e-6
        return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC,
                     seed=opts.seed, quick=opts.quick, **simulator_defaults(),
                     params={"flows": FLOWS, "together_s": together, **SIM_TIMES},
                     phases=[("shared bottleneck", 20.0)])
    together = 2.0 if opts.quick else 5.0  # seconds all flows share the port
    return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                 quick=opts.quick, rate_bps=DEFAULT_RATE, queue_depth=64,
                 trim_threshold=16, ecn_threshold=4,
                 params={"flows": FLOWS, "stagger_s": STAGGER_S, "together_s": together,
                         "bin_s": BIN_S, "settle_s": 0.3, "min_shared_s": 0.5},
                 phases=[("shared bottleneck", together * 2 + STAGGER_S * FLOWS + 10)])


def traffic(setup: Setup, fabric, seconds: float) -> list[Flow]:
    """FLOWS senders from other pods to the last host, started STAGGER_S apart; each sized
    to run its fair share until `seconds` after the last one joined."""
    p = setup.params
    receiver = plans.last_host(fabric)
    senders = plans.incast_senders(fabric, receiver, p["flows"], setup.seed)
    n, flows = p["flows"], []
    for i, src in enumerate(senders):
        # fair share while m flows run: 1/m of the port; the last phase lasts `seconds`
        shares = sum((seconds if m == n else p["stagger_s"]) / m for m in range(i + 1, n + 1))
        size = int(setup.link_rate * setup.payload_ceiling(False) * shares / 8)
        flows.append(Flow(src, receiver, size, seed=setup.seed * 1000 + i,
                          start=i * p["stagger_s"]))
    return flows


def run(session, setup: Setup) -> dict:
    session.progress("shared bottleneck")
    session.set_spray("ev")
    plan = traffic(setup, session.fabric, setup.params["together_s"])
    result = session.run_flows("shared", plan, timeout=setup.params["together_s"] * 6 + 30)
    return {"run": result, "starts": [f.start for f in plan]}


def verdicts(raw: dict) -> list[Verdict]:
    return [raw["run"].verdict]


def _per_second(series: list[tuple[float, float]], width: float, end: float) -> list[float]:
    """Rate of a cumulative count, per second, in bins (bin_rates works in bits: / 8)."""
    return [v / 8 for v in metrics.bin_rates(series, 0.0, end, width)] if series else []


def analyse(setup: Setup, raw: dict) -> dict:
    run, width = raw["run"], setup.params["bin_s"]
    t0 = run.t0
    flows = run.flows
    acked = [flowstats.acked_series(f, t0) for f in flows]
    end = max((s[-1][0] for s in acked if s), default=0.0)
    start_all = max(raw["starts"])
    ends = [flowstats.finish_time(f, t0) for f in flows]
    first_end = min((e for e in ends if e is not None), default=end)
    settle = setup.params.get("settle_s", 0.3)
    shared = [metrics.window_rate(s, start_all + settle, first_end) if s and
              first_end > start_all + setup.params.get("min_shared_s", 0.5) else None
              for s in acked]
    per_flow = []
    for f, s, start in zip(flows, acked, raw["starts"], strict=True):
        per_flow.append({
            "src": f.src, "start_s": start, "fct_s": flowstats.finish_time(f, t0),
            "goodput_bins_bps": metrics.bin_rates(s, 0.0, end, width) if s else [],
            "cwnd": flowstats.column(f, t0, "cwnd"),
            "ecn_per_s": _per_second(flowstats.column(f, t0, "ecn_echoes"), width, end),
            "qmax": flowstats.column(f, t0, "qmax"),
            "ecn_echoes": f.sender.counters.ecn_echoes,
            "nacks": f.sender.counters.nacks,
            "max_qmax": f.sender.counters.max_qmax,
            "timeouts": f.sender.counters.timeouts})
    valid = [x for x in shared if x is not None]
    qmax_values = [v for fl in per_flow for _, v in fl["qmax"] if v > 0]
    return {"link_rate_bps": setup.link_rate, "bin_s": width, "flows": per_flow,
            "shared_window": [start_all + settle, first_end],
            "shared_goodput_bps": shared,
            "shared_total": sum(valid) / setup.link_rate if valid else None,
            "jain": metrics.jain(valid) if len(valid) == len(shared) and valid else None,
            "qmax_median": metrics.percentile(qmax_values, 50) if qmax_values else None,
            "qmax_p99": metrics.percentile(qmax_values, 99) if qmax_values else None,
            "verdict": run.verdict}


def tables(analysis: dict) -> dict[str, list[dict]]:
    rows = [{"flow": f"{f['src']}", "start_s": f["start_s"], "fct_s": f["fct_s"],
             "shared_goodput_mbps": None if g is None else round(g / 1e6, 3),
             "ecn_echoes": f["ecn_echoes"], "nacks": f["nacks"], "max_qmax": f["max_qmax"],
             "timeouts": f["timeouts"]}
            for f, g in zip(analysis["flows"], analysis["shared_goodput_bps"], strict=True)]
    series = []
    for f in analysis["flows"]:
        series += [{"flow": f["src"], "t_s": metrics.significant(t), "cwnd": v}
                   for t, v in f["cwnd"]]
    return {"summary": rows, "cwnd": series}


def figures(analysis: dict, outdir) -> list[tuple[str, str]]:
    w = analysis["bin_s"]
    longest = max((len(f["goodput_bins_bps"]) for f in analysis["flows"]), default=1)
    scale, unit = metrics.time_unit(longest * w)
    per, rate_unit = metrics.rate_unit(analysis["link_rate_bps"])

    def binned(values):
        return [i * w * scale for i in range(len(values))], values

    def timed(pairs):
        return [t * scale for t, _ in pairs], [v for _, v in pairs]

    panels = [
        (f"goodput ({rate_unit})", {f["src"]: binned([v / per for v in f["goodput_bins_bps"]])
                                    for f in analysis["flows"]}),
        ("window (packets)", {f["src"]: timed(f["cwnd"]) for f in analysis["flows"]}),
        ("ECN echoes / s", {f["src"]: binned(f["ecn_per_s"]) for f in analysis["flows"]}),
        ("qmax echoed (packets)", {f["src"]: timed(f["qmax"]) for f in analysis["flows"]}),
    ]
    return [plots.stacked_timelines(outdir / "signals.png", panels,
                                    "Signals: three flows joining one bottleneck",
                                    xlabel=f"time since start ({unit})")]


def goals(setup: Setup, analysis: dict) -> list[dict]:
    jain = analysis["jain"]
    total = analysis["shared_total"]
    return [{"goal": "(lab's own) flows share the bottleneck fairly: Jain >= 0.9",
             "measured": "n/a" if jain is None else f"{jain:.3f}",
             "met": jain is not None and jain >= 0.9},
            {"goal": "(lab's own) the bottleneck stays busy: >= 80 % of its rate in goodput",
             "measured": "n/a" if total is None else f"{total:.1%}",
             "met": total is not None and total >= 0.8}]


def sweep_figures(analysis: dict) -> dict[str, float | None]:
    """What a sweep aggregates: the flows' share of the bottleneck together, their
    fairness, and the queue's median and 99th percentile."""
    return {"shared total": analysis["shared_total"], "jain": analysis["jain"],
            "qmax median": analysis["qmax_median"], "qmax p99": analysis["qmax_p99"]}
