"""The collective experiment's figures from its job records: per iteration step time,
collective time, algbw and busbw (nccl-tests' definitions, `mrclab.fabric.collective`);
per phase their percentiles, the share of the GPUs' time spent waiting, each rank's finish;
what a failure cost; the goals, tables and plots. Pure apart from the plots' files."""

from __future__ import annotations

from pathlib import Path

from mrclab.experiments import metrics, plots
from mrclab.experiments.config import Setup
from mrclab.experiments.records import JobRecord
from mrclab.fabric.training_job import IterationRecord

BUSBW_GOAL = 0.90  # ev and source: busbw at least this share of the ideal
ECMP_BELOW = 0.95  # ECMP "clearly below": under this share of the sprayed modes' busbw
FAILURE_COST = 0.02  # a core link failing may cost ev/source this much of a collective
PLANE_GOAL = 0.85  # with a plane failed: this share of what the others carry


def _iteration(it: IterationRecord, totals, size: int, factor: float, rate: float) -> dict:
    row = {"iteration": it.index, "start_s": it.start, "ended": it.end is not None,
           "compute_s": it.collective_start - it.start, "step_s": it.step_s,
           "comm_s": it.comm_s, "lost": it.lost,
           "events": [[t - it.start, what] for t, what in it.events],
           "retransmits": totals.retransmits, "timeouts": totals.timeouts,
           "nacks": totals.nacks, "ecn_echoes": totals.ecn_echoes}
    if it.comm_s:
        algbw = size / it.comm_s
        row.update(algbw_Bps=algbw, busbw_Bps=algbw * factor,
                   busbw_share=algbw * factor / rate)
        # each rank's finish after the collective began, as a share of the collective
        row["finish_shares"] = [(f - it.collective_start) / it.comm_s
                                for f in it.finish if f is not None]
        # the GPUs' time in the step: waiting on the network once every rank is in the
        # collective, and waiting for slower ranks' compute before that
        row["waiting_ranks_s"] = sum(it.collective_start - c for c in it.compute_end) \
            / len(it.compute_end)
        row["last_computer"] = it.compute_end.index(it.collective_start)
    return row


def _phase(setup: Setup, raw: dict, label: str, phase: dict,
           undisturbed: list[dict] | None = None) -> dict:
    """`undisturbed`: the iterations of the baseline phase of the same mode, when it ran:
    a failure's counterfactual (`_failure_cost`)."""
    job: JobRecord = phase["job"]
    p = setup.params
    rate, factor = raw["rank_bytes_per_s"], raw["bus_factor"]
    rows = [_iteration(c.iteration, c.totals, p["size"], factor, rate) for c in job.iterations]
    done = [r for r in rows if r["ended"]]
    steps = [r["step_s"] for r in done]
    comms = [r["comm_s"] for r in done]
    shares = [r["busbw_share"] for r in done if "busbw_share" in r]
    # an iteration that Ctrl-C or SIGTERM cut short did not fail to end
    cut = 1 if job.incomplete and rows and not rows[-1]["ended"] else 0
    out = {"scenario": phase["scenario"], "mode": phase["mode"], "iterations": rows,
           "run": len(rows) - cut, "ended": len(done), "planned": p["iterations"],
           "never_ended": len(rows) - len(done) - cut, "stalled": job.stalled,
           "incomplete": job.incomplete, "lost": sum(r["lost"] for r in rows),
           "timeouts": sum(r["timeouts"] for r in rows),
           "retransmits": sum(r["retransmits"] for r in rows)}
    if done:
        out.update(step_p50_s=metrics.percentile(steps, 50),
                   step_p99_s=metrics.percentile(steps, 99),
                   comm_p50_s=metrics.percentile(comms, 50),
                   comm_p99_s=metrics.percentile(comms, 99),
                   busbw_p50_share=metrics.percentile(shares, 50) if shares else None,
                   busbw_mean_share=metrics.mean(shares) if shares else None,
                   busbw_p50_Bps=metrics.percentile([r["busbw_Bps"] for r in done], 50),
                   waiting_network=sum(comms) / sum(steps),
                   waiting_ranks=sum(r["waiting_ranks_s"] for r in done) / sum(steps),
                   finish_shares=[f for r in done for f in r["finish_shares"]])
    failed = [r for r in rows if r["events"]]
    if failed and phase["scenario"] != "straggler":
        out["failures"] = _failure_cost(rows, failed[0]["iteration"], undisturbed)
    if phase["scenario"] == "straggler":
        who = p["straggler"]
        out["straggler"] = {"rank": who, "host": raw["hosts"][who],
                            "factor": p["straggler_factor"],
                            "last_in": sum(1 for r in done if r.get("last_computer") == who),
                            "compute_p50_s": metrics.percentile([r["compute_s"] for r in done],
                                                                50) if done else None}
    return out


def _failure_cost(rows: list[dict], first: int,
                  undisturbed: list[dict] | None = None) -> dict:
    """The first failing iteration's collective against the same iteration undisturbed
    (`undisturbed`, the baseline phase of the same mode, when it ran), against the median
    of the iterations before it (same phase, same seed), and against the next one when
    nothing happens in it: that one runs on the fabric the failure left, so what the
    failing iteration costs beyond it is the reaction to the failure rather than the
    capacity it took away; and the busbw of those after it.

    The cost (`cost`) is against the undisturbed iteration when there is one: the job's
    connections carry their windows and estimates from one iteration to the next, so an
    iteration may run slower or faster than the ones before it with no failure at all
    (on 8 planes of k=8 at 64 MiB, the second iteration took 35 % longer than the first).
    On the simulator the two phases are one run until the failure (same inputs and seed)."""
    before = [r for r in rows[:first] if r["ended"] and "busbw_share" in r]
    hit = rows[first]
    twin = undisturbed[first] if undisturbed is not None and first < len(undisturbed) else None
    twin_comm = twin["comm_s"] if twin is not None and twin["ended"] else None
    after = [r["busbw_share"] for r in rows[first + 1:] if r["ended"] and "busbw_share" in r]
    reference = metrics.percentile([r["comm_s"] for r in before], 50) if before else None
    nxt = rows[first + 1] if first + 1 < len(rows) else None
    next_comm = nxt.get("comm_s") if nxt and nxt["ended"] and not nxt["events"] else None
    cost_vs_before = _longer(hit["comm_s"], reference)
    return {"iteration": first, "events": hit["events"], "reference_comm_s": reference,
            "comm_s": hit["comm_s"],
            "undisturbed_comm_s": twin_comm, "cost_vs_before": cost_vs_before,
            "cost": cost_vs_before if twin_comm is None else _longer(hit["comm_s"], twin_comm),
            "next_comm_s": next_comm,
            "cost_vs_next": _longer(hit["comm_s"], next_comm),
            "busbw_before_share": metrics.percentile([r["busbw_share"] for r in before], 50)
            if before else None,
            "busbw_after_share": metrics.percentile(after, 50) if after else None}


def _longer(comm_s: float | None, reference_s: float | None) -> float | None:
    """How much longer `comm_s` took than `reference_s` (a fraction); None without both."""
    return None if comm_s is None or reference_s is None else comm_s / reference_s - 1


def analyse(setup: Setup, raw: dict) -> dict:
    # the baselines first: their iterations are the failures' undisturbed twins
    phases = {label: _phase(setup, raw, label, phase)
              for label, phase in raw["phases"].items() if phase["scenario"] == "baseline"}
    twins = {a["mode"]: a["iterations"] for a in phases.values()}
    for label, phase in raw["phases"].items():
        if label not in phases:
            phases[label] = _phase(setup, raw, label, phase, twins.get(phase["mode"]))
    return {"ideal_s": raw["ideal_s"], "compute_s": raw["compute_s"],
            "rank_bytes_per_s": raw["rank_bytes_per_s"], "bus_factor": raw["bus_factor"],
            "link_rate_bps": setup.link_rate, "planes": setup.params["planes"],
            "phases": {label: phases[label] for label in raw["phases"]}}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def goals(setup: Setup, analysis: dict) -> list[dict]:
    phases = analysis["phases"]
    out = []
    lost = sum(a["lost"] for a in phases.values())
    never = sum(a["never_ended"] for a in phases.values())
    short = sum(a["planned"] - a["run"] for a in phases.values())
    out.append({"goal": "every iteration ends, 0 lost transfers",
                "measured": f"{sum(a['ended'] for a in phases.values())} iterations ended in "
                            f"{len(phases)} phases, {never} never ended, {short} not run, "
                            f"{lost} transfers lost",
                "met": lost == 0 and never == 0 and short == 0})
    base = {a["mode"]: a.get("busbw_p50_share") for a in phases.values()
            if a["scenario"] == "baseline"}
    sprayed = {m: v for m, v in base.items() if m in ("ev", "source") and v is not None}
    if sprayed:
        ok = all(v >= BUSBW_GOAL for v in sprayed.values())
        if base.get("ecmp") is not None:
            ok = ok and base["ecmp"] < ECMP_BELOW * min(sprayed.values())
        out.append({"goal": f"ev and source busbw >= {BUSBW_GOAL:.0%} of ideal, ECMP clearly "
                            "below",
                    "measured": ", ".join(f"{m} {_pct(v)}" for m, v in base.items())
                    + " of the ideal busbw (p50)", "met": ok})
    for label, a in phases.items():
        f = a.get("failures")
        if a["scenario"] in ("link-gray", "link-admin") and a["mode"] in ("ev", "source") and f:
            out.append({"goal": f"{label}: a core link failing mid-collective costs <= "
                                f"{FAILURE_COST:.0%} of its time",
                        "measured": f"iteration {f['iteration']}: {_s(f['comm_s'])} against "
                                    + ("" if f.get("undisturbed_comm_s") is None else
                                       f"{_s(f['undisturbed_comm_s'])} undisturbed (the "
                                       f"baseline's iteration {f['iteration']}: "
                                       f"{_signed(f['cost'])}), ")
                                    + f"{_s(f['reference_comm_s'])} before "
                                    f"({_signed(f['cost_vs_before'])})"
                                    + ("" if f.get("next_comm_s") is None else
                                       f", {_s(f['next_comm_s'])} in the next on the fabric "
                                       f"it left ({_signed(f['cost_vs_next'])})"),
                        "met": f["cost"] is not None and f["cost"] <= FAILURE_COST})
        if a["scenario"] == "plane" and f:
            planes = analysis["planes"]
            before, after = f["busbw_before_share"], f["busbw_after_share"]
            out.append({"goal": f"{label}: the iterations after a plane fails keep >= "
                                f"{PLANE_GOAL:.0%} of {planes - 1}/{planes} of the busbw "
                                "before",
                        "measured": f"busbw {_pct(after)} of ideal after it, {_pct(before)} "
                                    "before",
                        "met": before is not None and after is not None
                        and after >= PLANE_GOAL * (planes - 1) / planes * before})
        if a["scenario"] == "straggler" and a.get("straggler"):
            st = a["straggler"]
            out.append({"goal": f"{label}: the {st['factor']:g}x straggler sets the step time",
                        "measured": f"rank {st['rank']} ({st['host']}) computed last in "
                                    f"{st['last_in']}/{a['ended']} iterations: step p50 "
                                    f"{_s(a.get('step_p50_s'))} = its compute "
                                    f"{_s(st['compute_p50_s'])} + the collective "
                                    f"{_s(a.get('comm_p50_s'))}",
                        "met": a["ended"] > 0 and st["last_in"] == a["ended"]})
    return out


def _s(x: float | None) -> str:
    return metrics.format_seconds(x) if x is not None else "-"


def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.1%}"


def tables(analysis: dict) -> dict[str, list[dict]]:
    summary, iterations, ranks = [], [], []
    for label, a in analysis["phases"].items():
        f = a.get("failures") or {}
        summary.append({"phase": label, "iterations_ended": a["ended"],
                        "never_ended": a["never_ended"], "lost": a["lost"],
                        "step_p50_s": a.get("step_p50_s"), "step_p99_s": a.get("step_p99_s"),
                        "comm_p50_s": a.get("comm_p50_s"), "comm_p99_s": a.get("comm_p99_s"),
                        "busbw_p50_bps": _bps(a.get("busbw_p50_Bps")),
                        "busbw_p50_of_ideal": a.get("busbw_p50_share"),
                        "waiting_network": a.get("waiting_network"),
                        "waiting_ranks": a.get("waiting_ranks"),
                        "failure_cost": f.get("cost"),
                        "failure_cost_vs_before": f.get("cost_vs_before"),
                        "failure_cost_vs_next": f.get("cost_vs_next"),
                        "busbw_after_failure_of_ideal": f.get("busbw_after_share"),
                        "timeouts": a["timeouts"],
                        "retransmits": a["retransmits"]})
        for r in a["iterations"]:
            iterations.append({"phase": label, "iteration": r["iteration"],
                               "step_s": r["step_s"], "comm_s": r["comm_s"],
                               "compute_s": r["compute_s"],
                               "algbw_bps": _bps(r.get("algbw_Bps")),
                               "busbw_bps": _bps(r.get("busbw_Bps")),
                               "busbw_of_ideal": r.get("busbw_share"), "lost": r["lost"],
                               "timeouts": r["timeouts"], "retransmits": r["retransmits"],
                               "events": "; ".join(f"{metrics.format_seconds(t)}: {w}"
                                                   for t, w in r["events"])})
        shares = a.get("finish_shares") or []
        if shares:
            ranks.append({"phase": label, "finish_p10": metrics.percentile(shares, 10),
                          "finish_p50": metrics.percentile(shares, 50),
                          "finish_p90": metrics.percentile(shares, 90)})
    clean = [{k: metrics.significant(v) if isinstance(v, float) else v for k, v in row.items()}
             for row in summary]
    return {"summary": clean, "iterations": iterations, "rank_finish": ranks}


def _bps(bytes_per_s: float | None) -> float | None:
    """Bits per second, to 4 significant figures (the lab's Mb/s, the simulator's Gb/s)."""
    return None if bytes_per_s is None else metrics.significant(bytes_per_s * 8)


def figures(analysis: dict, outdir: Path) -> list[tuple[str, str]]:
    phases = analysis["phases"]
    out = []
    longest = max((a.get("step_p99_s") or 0.0 for a in phases.values()), default=0.0)
    scale, unit = metrics.time_unit(longest)
    series, marks = {}, []
    for label, a in phases.items():
        rows = [r for r in a["iterations"] if r["ended"]]
        series[label] = ([r["iteration"] for r in rows], [r["step_s"] * scale for r in rows])
        for r in rows:
            if r["events"]:
                what = "; ".join(w for _, w in r["events"])
                marks.append((r["iteration"], r["step_s"] * scale, f"{label}: {what}"))
    out.append(plots.iteration_plot(outdir / "step_time.png", series, marks,
                                    f"step time ({unit})",
                                    "Step time per iteration (failures marked)"))
    base = {a["mode"]: a for a in phases.values() if a["scenario"] == "baseline"}
    if base:
        per, unit = metrics.rate_unit(analysis["link_rate_bps"])
        ideal = analysis["rank_bytes_per_s"] * 8 / per
        out.append(plots.grouped_bars(
            outdir / "busbw.png",
            {"busbw p50": {m: (_bps(a.get("busbw_p50_Bps")) or 0.0) / per
                           for m, a in base.items()},
             "ideal": {m: ideal for m in base}},
            unit, "Bus bandwidth per spray mode (nccl-tests' busbw)"))
    out.append(plots.grouped_bars(
        outdir / "waiting.png",
        {"on the network": {label: a.get("waiting_network") or 0.0
                            for label, a in phases.items()},
         "on slower ranks": {label: a.get("waiting_ranks") or 0.0
                             for label, a in phases.items()}},
        "share of the step", "GPU time spent waiting, per scenario"))
    out.append(plots.cdf_plot(
        outdir / "rank_finish.png",
        {label: a.get("finish_shares") or [] for label, a in phases.items()},
        "rank's finish, share of the collective's time",
        "Per-rank finish within the collective", ylabel="share of ranks x iterations"))
    return out


def sweep_figures(analysis: dict) -> dict[str, float | None]:
    """Per phase: busbw (share of ideal, p50), step time p50 and p99, lost transfers,
    iterations that never ended, and a failure's cost where one happened."""
    out: dict[str, float | None] = {}
    for label, a in analysis["phases"].items():
        out[f"{label} busbw_of_ideal"] = a.get("busbw_p50_share")
        out[f"{label} step_p50_s"] = a.get("step_p50_s")
        out[f"{label} step_p99_s"] = a.get("step_p99_s")
        out[f"{label} lost"] = float(a["lost"])
        out[f"{label} never_ended"] = float(a["never_ended"])
        if a.get("failures"):
            out[f"{label} failure_cost"] = a["failures"]["cost"]
    return out
