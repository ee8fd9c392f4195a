"""A sweep's outputs: every run in a row, the aggregate per configuration, plots of the
means with their 95 % intervals, and report.md."""

from __future__ import annotations

import json
from pathlib import Path

from mrclab.experiments import plots
from mrclab.experiments.report import md_table, write_csv
from mrclab.experiments.sweep.aggregate import SweepRecord, aggregate, counts
from mrclab.experiments.sweep.grid import Point


def run_rows(points: list[Point], records: list[SweepRecord]) -> list[dict]:
    by_key = {r.key: r for r in records}
    rows = []
    for p in points:
        r = by_key.get(p.key)
        if r is None:
            continue
        rows.append({**p.varied, "run": p.key, "faithful": r.faithful,
                     "error": r.error or "", "seconds": r.seconds, **r.figures})
    return rows


def _figure_plots(rows: list[dict], varied: list[str], out: Path) -> list[tuple[str, str]]:
    """One plot per kind of figure ('mean', 'min', 'slowdown', ...): the figure's modes as
    series over the one varied parameter (or over the configurations)."""
    kinds: dict[str, dict[str, list[dict]]] = {}
    for row in rows:
        series, _, kind = row["figure"].rpartition(" ")
        kinds.setdefault(kind, {}).setdefault(series or row["figure"], []).append(row)
    made = []
    for kind, by_series in kinds.items():
        if any(r["mean"] is None for rs in by_series.values() for r in rs):
            continue
        data = {}
        if not varied:  # one configuration: the modes side by side
            names = list(by_series)
            data[kind] = (names, [by_series[n][0]["mean"] for n in names],
                          [by_series[n][0]["ci95"] or 0.0 for n in names])
        for name, rs in by_series.items() if varied else ():
            xs = [r[varied[0]] if len(varied) == 1 else
                  ", ".join(f"{k}={r[k]}" for k in varied) or "all" for r in rs]
            data[name] = (xs, [r["mean"] for r in rs], [r["ci95"] or 0.0 for r in rs])
        safe = "".join(c if c.isalnum() else "_" for c in kind)
        made.append(plots.errorbar_plot(
            out / f"sweep_{safe}.png", data,
            varied[0] if len(varied) == 1 else "configuration" if varied else "mode",
            kind, f"{kind}: mean and 95 % interval over seeds"))
    return made


def write(out: Path, experiment: str, command: str, points: list[Point],
          records: list[SweepRecord],
          varied: list[str], outcome_note: dict) -> dict:
    rows = run_rows(points, records)
    agg = aggregate(records)
    n = counts(records)
    figures = _figure_plots(agg, varied, out)
    write_csv(out / "runs.csv", rows)
    write_csv(out / "summary.csv", agg)
    failed = [r for r in rows if r["error"]]
    table = [{**{k: r[k] for k in varied}, "figure": r["figure"], "n": r["n"],
              "mean": r["mean"], "ci95": r["ci95"], "std": r["std"]} for r in agg]
    text = [f"# Sweep: {experiment}\n", f"`{command}`\n",
            f"{n['runs']} runs of {len(points)} ({outcome_note.get('skipped', 0)} found done "
            f"by an earlier invocation), {n['faithful']} faithful, {n['unfaithful']} judged "
            f"unfaithful and left out, {n['failed']} failed; {outcome_note.get('workers', 0)} "
            f"workers, {outcome_note.get('wall_s', 0):.0f} s"
            + (". **Interrupted**: the runs missing from the table did not run."
               if outcome_note.get("interrupted") else ".") + "\n",
            "## Per configuration (faithful runs; 95 % interval by Student's t)\n",
            md_table(table, limit=200)]
    text += [f"![{caption}]({name})\n" for name, caption in figures]
    if failed:
        text += ["## Failed runs\n", md_table([{**{k: r[k] for k in [*varied, "seed"]},
                                                "error": r["error"]} for r in failed])]
    (out / "report.md").write_text("\n".join(text))
    result = {"experiment": experiment, "command": command, "counts": n,
              "aggregate": agg, "runs": rows, **outcome_note}
    (out / "results.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
    return result
