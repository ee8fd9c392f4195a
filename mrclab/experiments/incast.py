"""Incast: N senders to one receiver at once, trimming on vs off (drop-tail), ev spraying.

What to see: the receiver's edge port is the bottleneck. With trimming, a packet that would
overflow the queue loses its payload but its header reaches the receiver, which NACKs it at
once: no timeouts, completion near the ideal (bytes / bottleneck rate). Drop-tail loses the
packet silently; tail losses wait for a retransmission timeout.
"""

from __future__ import annotations

from dataclasses import dataclass

from mrclab.experiments import flowstats, metrics, plans, plots
from mrclab.experiments.config import ExperimentError, Options, Setup, simulator_defaults
from mrclab.experiments.plans import Flow, PlanError
from mrclab.experiments.records import PhaseRecord
from mrclab.experiments.validity import Verdict
from mrclab.fabric.spec import parse_spec
from mrclab.jsonrecords import flat

NAME = "incast"
ENGINES = ("lab", "sim")
TITLE = "Incast: trimming vs drop-tail"
SPEC = "fattree:k=4"
MODES = ("trim", "droptail")
# quick keeps 15: at N = 8 drop-tail loses a few packets that SACK repairs, and its only
# timeouts there are spurious ones (late packets), so only N = 15 shows what trimming avoids
DEFAULT_N = {False: (4, 8, 15), True: (4, 15)}
DEFAULT_RATE = 2_000_000
TRIM, ECN, DEPTH = 8, 4, 64  # BMv2's default depth
# The senders' RTO floor. The endpoint CLI's 100 ms fits an idle machine; here 15 senders,
# 20 switches and a background build share 2 cores, and a scheduling stall of 100-200 ms
# fires the RTO on packets that are only late (seen with trimming on and nothing dropped).
# Both modes use the same floor, so it does not favour trimming: drop-tail's lost tails
# wait for it all the same.
MIN_RTO_S = 0.2
# The simulator (--engine sim): each incast is this long at the receiver's 100 Gb/s link
# (1 ms: 12.5 MB, several first windows of a BDP per sender even at N = 128); its senders
# keep the simulator's RTO floor (tens of microseconds).
SIM_IDEAL_S = {True: 50e-6, False: 1e-3}


def setup(opts: Options) -> Setup:
    fabric = parse_spec(opts.spec or SPEC)
    counts = opts.incast_n or DEFAULT_N[opts.quick]
    receiver = plans.last_host(fabric)
    for n in counts:  # bad N fails here, before any lab starts
        try:
            plans.incast_senders(fabric, receiver, n, opts.seed)
        except PlanError as exc:
            raise ExperimentError(str(exc)) from None
    if opts.engine == "sim":
        seconds = SIM_IDEAL_S[opts.quick]
        return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                     quick=opts.quick, **simulator_defaults(),
                     params={"senders": list(counts), "receiver": receiver,
                             "ideal_s": seconds, "modes": list(MODES), "min_rto_s": None},
                     phases=[(f"{m} N={n}", 5.0) for m in MODES for n in counts])
    seconds = 1.5 if opts.quick else 3.0  # ideal completion time of each incast
    return Setup(experiment=NAME, target=opts.target, spec=opts.spec or SPEC, seed=opts.seed,
                 quick=opts.quick, rate_bps=DEFAULT_RATE, queue_depth=DEPTH,
                 trim_threshold=TRIM, ecn_threshold=ECN,
                 params={"senders": list(counts), "receiver": receiver,
                         "ideal_s": seconds, "modes": list(MODES), "min_rto_s": MIN_RTO_S},
                 phases=[(f"{m} N={n}", seconds * 3 + 6) for m in MODES for n in counts])


def traffic(setup: Setup, fabric, seconds: float, n: int | None = None) -> list[Flow]:
    """`n` senders (default: the largest N) sending together `seconds` worth of the
    bottleneck's rate in all."""
    n = n or max(setup.params["senders"])
    receiver = setup.params["receiver"]
    senders = plans.incast_senders(fabric, receiver, n, setup.seed)
    size = max(1, int(setup.link_rate * seconds / 8 / n))
    min_rto = setup.params.get("min_rto_s", MIN_RTO_S)
    rto = ("--min-rto", str(min_rto)) if min_rto is not None else ()
    return [Flow(src, receiver, size, seed=setup.seed * 1000 + i, send_args=rto)
            for i, src in enumerate(senders)]


@dataclass(slots=True)
class IncastRun:
    """One incast: its mode and sender count beside the phase's own fields in the JSON."""

    mode: str
    n: int
    trim_threshold: int
    phase: PhaseRecord = flat()


def run(session, setup: Setup) -> dict:
    out: dict = {"runs": []}
    current = setup.trim_threshold  # what the lab started with
    session.set_spray("ev")
    for mode in setup.params["modes"]:
        trim = setup.trim_threshold if mode == "trim" else 0
        if trim != current:  # the controller installs thresholds: restart it with new ones
            session.set_thresholds(trim, setup.ecn_threshold, "ev")
            current = trim
        for n in setup.params["senders"]:
            session.progress(f"{mode} N={n}")
            plan = traffic(setup, session.fabric, setup.params["ideal_s"], n)
            result = session.run_flows(f"{mode}-{n}", plan,
                                       timeout=setup.params["ideal_s"] * 10 + 20)
            out["runs"].append(IncastRun(mode, n, trim, result))
    return out


def verdicts(raw: dict) -> list[Verdict]:
    return [run.phase.verdict for run in raw["runs"]]


def analyse(setup: Setup, raw: dict) -> dict:
    rate = setup.link_rate
    rows = []
    for run in raw["runs"]:
        phase = run.phase
        flows = phase.flows
        ends = [flowstats.finish_time(f, phase.t0) for f in flows]
        total = sum(f.size for f in flows)
        ideal = total * 8 / rate
        fct = max(ends) if ends and all(e is not None for e in ends) else None
        recv = phase.receiver()
        sent = flowstats.sender_total(flows, lambda c: c.data_packets_sent)
        rows.append({
            "mode": run.mode, "n": run.n, "bytes": total, "ideal_s": ideal,
            "fct_s": fct, "slowdown": None if fct is None else fct / ideal,
            "flow_fct_s": ends, "failed": sum(1 for f in flows if not f.ok),
            "timeouts": flowstats.sender_total(flows, lambda c: c.timeouts),
            # a timeout all of whose packets turned up after all (late, trimmed, or
            # overtaken by their resent copies): the emulation held a packet past the timer, nothing
            # was lost
            "spurious_timeouts": flowstats.sender_total(flows, lambda c: c.timeouts_spurious),
            "retransmits": flowstats.sender_total(flows, lambda c: c.retransmits),
            "nacks": flowstats.sender_total(flows, lambda c: c.nacks),
            "ecn_echoes": flowstats.sender_total(flows, lambda c: c.ecn_echoes),
            "trimmed_at_receiver": recv.stats.trimmed if phase.receivers else None,
            "data_sent": sent,
            # what the senders sent and the receiver never saw, whole or trimmed, was
            # dropped (a few late retransmissions may still be in flight at the end)
            "dropped": max(0, sent - recv.stats.data_packets) if phase.receivers else None,
            "faithful": phase.verdict.faithful})
    return {"link_rate_bps": rate, "rows": rows}


def tables(analysis: dict) -> dict[str, list[dict]]:
    keys = ("mode", "n", "bytes", "ideal_s", "fct_s", "slowdown", "timeouts",
            "spurious_timeouts", "retransmits", "nacks", "trimmed_at_receiver",
            "ecn_echoes", "dropped", "failed", "faithful")
    rows = [{k: (metrics.significant(r[k]) if isinstance(r[k], float) else r[k]) for k in keys}
            for r in analysis["rows"]]
    flows = [{"mode": r["mode"], "n": r["n"], "flow": i, "fct_s": fct}
             for r in analysis["rows"] for i, fct in enumerate(r["flow_fct_s"])]
    return {"summary": rows, "flow_fct": flows}


def figures(analysis: dict, outdir) -> list[tuple[str, str]]:
    by_mode: dict[str, dict[str, float]] = {}
    timeouts: dict[str, dict[str, float]] = {}
    for r in analysis["rows"]:
        by_mode.setdefault(r["mode"], {})[f"N={r['n']:02d}"] = r["slowdown"] or 0.0
        timeouts.setdefault(r["mode"], {})[f"N={r['n']:02d}"] = r["timeouts"]
    return [plots.grouped_bars(outdir / "fct.png", by_mode, "completion time / ideal",
                               "Incast: completion time vs the ideal (1.0)"),
            plots.grouped_bars(outdir / "timeouts.png", timeouts,
                               "retransmission timeouts (all senders)",
                               "Incast: retransmission timeouts")]


def goals(setup: Setup, analysis: dict) -> list[dict]:
    trim = [r for r in analysis["rows"] if r["mode"] == "trim"]
    drop = [r for r in analysis["rows"] if r["mode"] == "droptail"]
    out = []
    if trim:
        out.append({"goal": "trimming: 0 timeouts",
                    "measured": ", ".join(f"N={r['n']}: {_timeouts(r)}" for r in trim),
                    "met": all(loss_timeouts(r) == 0 and not r["failed"] for r in trim)})
        out.append({"goal": "trimming: completion <= 1.2 x ideal",
                    "measured": ", ".join(f"N={r['n']}: {_x(r['slowdown'])}" for r in trim),
                    "met": all(r["slowdown"] is not None and r["slowdown"] <= 1.2
                               for r in trim)})
    if drop:
        out.append({"goal": "drop-tail shows timeouts",
                    "measured": ", ".join(f"N={r['n']}: {_timeouts(r)} timeouts, "
                                          f"{_x(r['slowdown'])}" for r in drop),
                    "met": any(loss_timeouts(r) > 0 for r in drop)})
    return out


def loss_timeouts(row: dict) -> int:
    """Timeouts that recovered a lost packet: all but those shown spurious."""
    return row["timeouts"] - row["spurious_timeouts"]


def _timeouts(row: dict) -> str:
    spurious = row["spurious_timeouts"]
    return f"{loss_timeouts(row)}" + (f" (+{spurious} spurious)" if spurious else "")


def _x(value: float | None) -> str:
    return "failed" if value is None else f"{value:.2f}x"


def sweep_figures(analysis: dict) -> dict[str, float | None]:
    """What a sweep aggregates: per mode and N, completion over ideal and timeouts."""
    out: dict[str, float | None] = {}
    for row in analysis["rows"]:
        label = f"{row['mode']} N={row['n']}"
        out[f"{label} slowdown"] = row["slowdown"]
        out[f"{label} timeouts"] = row["timeouts"]
    return out
