"""Writing a run's results: results.json, one CSV per table, report.md. Pure text making
(`markdown`) apart from the file writes in `write_outputs`."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from mrclab.experiments.config import Setup, mss
from mrclab.experiments.metrics import format_seconds
from mrclab.experiments.validity import Verdict, cpu_only, short_label
from mrclab.jsonrecords import json_default


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if value is None:
        return "-"
    return str(value)


def md_table(rows: list[dict], limit: int = 60) -> str:
    if not rows:
        return "(no rows)\n"
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for row in rows[:limit]:
        lines.append("| " + " | ".join(_fmt(row.get(k)) for k in keys) + " |")
    if len(rows) > limit:
        lines.append(f"\n({len(rows) - limit} more rows in the CSV)")
    return "\n".join(lines) + "\n"


def _rate(bps: float | None) -> str:
    if not bps:
        return "unlimited"
    return f"{bps / 1e9:g} Gb/s" if bps >= 1e9 else f"{bps / 1e6:g} Mb/s"



def setup_rows(setup: Setup, env: dict) -> list[dict]:
    rate_note = {"auto": " (calibrated: --rate auto)", "option": " (--rate)",
                 "default": " (experiment default)"}[setup.rate_source]
    rows = [("engine", "simulator (virtual time: figures depend only on the inputs and "
                       "the seed)" if setup.engine == "sim" else "lab (real time)"),
            ("target", f"{setup.target} ({env.get('queue_model', '')})"),
            ("topology", setup.spec),
            ("host link rate", _rate(setup.rate_bps) + rate_note),
            ("fabric link rate", _rate(setup.fabric_rate_bps or setup.rate_bps)),
            ("MTU", f"{setup.mtu} bytes on every interface (DATA payload "
                    f"{mss(setup.mtu)} bytes)"),
            ("queue depth", f"{setup.queue_depth} packets per egress data queue, "
                            f"{setup.high_priority_depth} in its high-priority queue "
                            "(trimmed headers, ACKs: the same bytes)"),
            ("trim threshold", f"{setup.trim_threshold} packets" if setup.trim_threshold
             else "off"),
            ("ECN threshold", f"{setup.ecn_threshold} packets" if setup.ecn_threshold
             else "off"),
            ("link probes", f"every {format_seconds(setup.probe_interval)}, down after "
                            f"{setup.miss_limit} missed"),
            *([("link delay", format_seconds(setup.link_delay_s) + " per link")]
              if setup.engine == "sim" else []),
            ("seed", str(setup.seed)), ("quick", str(setup.quick)),
            ("parameters", json.dumps(setup.params))]
    rows += [(k, str(v)) for k, v in env.get("versions", {}).items()]
    rows += [("machine", env.get("machine", "")),
             ("load average (1, 5, 15 min) at start", str(env.get("load_start"))),
             ("duration", f"{env.get('duration_s', 0):.0f} s")]
    if "packet_hops" in env:
        rows.append(("simulated", f"{env['packet_hops']:,} packet-hops, "
                                  f"{env['packet_hops_per_s']:,} per wall-clock second"))
    return [{"setting": k, "value": v} for k, v in rows]


def markdown(title: str, question: str, setup: Setup, env: dict, verdict: Verdict,
             goals: list[dict], figures: list[tuple[str, str]], tables: dict) -> str:
    label = ("**unfaithful: the machine did not keep up, the results are not the "
             "protocol's**" if not verdict.faithful else
             "faithful" if not cpu_only(verdict) else
             "faithful as far as measured (the CPU and the ACKs' delays: this target's "
             "receive backlog and missed frames are out of sight)")
    if verdict.engine == "sim":
        parts = [f"# {title}\n", question.strip() + "\n",
                 "**Engine:** the simulator, in virtual time: mrc.p4 through p4emu's "
                 "pipeline, the controller's logic and the endpoint's sender and receiver, "
                 "in one process; no machine limit applies, and the same inputs and seed "
                 "give the same figures.\n"]
    else:
        parts = [f"# {title}\n", question.strip() + "\n",
                 f"**Emulation:** {label}. CPU busy {_pct(verdict.cpu_busy)} (niced "
                 f"background work {_pct(verdict.cpu_nice)} excluded), switch "
                 f"socket backlog p95 {_kib(verdict.backlog_p95_bytes)}, frames "
                 f"missed by switches {_pct(verdict.ingress_loss_share, 2)}, ACKs "
                 f"later than the queues explain {_pct(verdict.late_share, 2)}."
                 + "".join(f"\n- {r}" for r in verdict.reasons) + "\n"]
    if env.get("incomplete"):
        parts.append(f"**Incomplete:** {env['incomplete']}.\n")
    if goals:
        parts.append("## Goals\n")
        parts.append(md_table([{"goal": g["goal"], "measured": g["measured"],
                                "met": "yes" if g["met"] else "NO"} for g in goals]))
    parts.append("## Setup\n")
    parts.append(md_table(setup_rows(setup, env)))
    parts.append("## Plots\n")
    parts += [f"![{caption}]({name})\n" for name, caption in figures]
    parts.append("## Tables\n")
    for name, rows in tables.items():
        parts.append(f"### {name} (`{name}.csv`)\n")
        parts.append(md_table(rows))
    return "\n".join(parts)


def _pct(value: float | None, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:.{digits}%}"


def _kib(value: float | None) -> str:
    return "n/a" if value is None else f"{value / 1024:.0f} KiB"


def write_csv(path: Path, rows: list[dict]) -> None:
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def write_outputs(outdir: Path, results: dict, tables: dict, report_md: str) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "results.json").write_text(json.dumps(results, indent=1, default=json_default)
                                         + "\n")
    for name, rows in tables.items():
        write_csv(outdir / f"{name}.csv", rows)
    (outdir / "report.md").write_text(report_md)


def index_markdown(summaries: list[dict], prefix: str = "") -> str:
    """The overview of `experiment all`: per experiment its verdict, goals and plots.
    `prefix` is prepended to every link (the index's folder seen from where it is read)."""
    lines = ["| experiment | emulation | goals met | report |", "|---|---|---|---|"]
    for s in summaries:
        met = sum(1 for g in s["goals"] if g["met"])
        lines.append(f"| {s['experiment']} | {short_label(s['verdict'])} | "
                     f"{met}/{len(s['goals'])} | [report]({prefix}{s['experiment']}/report.md) |")
    parts = ["\n".join(lines) + "\n"]
    for s in summaries:
        parts.append(f"### {s['experiment']}\n")
        v = s["verdict"]
        parts.append(f"Emulation {short_label(v)}: CPU "
                     f"{_pct(v.cpu_busy)} busy, backlog p95 "
                     f"{_kib(v.backlog_p95_bytes)}, frames missed "
                     f"{_pct(v.ingress_loss_share, 2)}, late ACKs "
                     f"{_pct(v.late_share, 2)}; {s.get('setup_line', '')}\n")
        if s["goals"]:
            parts.append(md_table([{"goal": g["goal"], "measured": g["measured"],
                                    "met": "yes" if g["met"] else "NO"} for g in s["goals"]]))
        parts += [f"![{caption}]({prefix}{s['experiment']}/{name})\n"
                  for name, caption in s.get("figures", [])]
    return "\n".join(parts)
