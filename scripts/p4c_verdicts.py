#!/usr/bin/env python3
"""Compare p4emu's accept/refuse verdicts with real p4c-bm2-ss on p4c's own v1model testdata.

    python scripts/p4c_verdicts.py /opt/p4build/p4c/testdata /opt/p4tools/bin/p4c-bm2-ss

Programs: every *.p4 of p4_16_samples, p4_16_errors and p4_16_bmv_errors that includes
v1model.p4. p4c runs as `p4c-bm2-ss --arch v1model -o X.json --p4runtime-files X.txtpb`
because p4emu always builds the P4Info, and p4c only finds some errors (duplicate
control-plane names) while serializing it. p4c's verdicts are slow to get and only change
with the program or the compiler, so they are cached in build/p4c_verdicts.json, keyed by
the program's hash and p4c's --version. p4emu runs afresh every time, one subprocess per
program, so a hang or a crash stays with that program.

Prints the agreement table and, below it, every disagreement and every p4emu crash with
p4emu's message and p4c's first error line. Exit status 0 whatever the figures: it measures.

Without a p4c binary, `--p4emu-only` takes the folders' intent as the reference (samples
should compile, the error folders should not), which is close to p4c's verdicts but not
the same: a few samples fail in p4c's BMv2 back end, a few error programs only warn.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOLDERS = ("p4_16_samples", "p4_16_errors", "p4_16_bmv_errors")
V1MODEL = re.compile(r'^\s*#\s*include\s*[<"]v1model\.p4[>"]', re.M)
LOCATED = re.compile(r"^[^\s:]+:\d+:\d+: error: ")
P4C_TIMEOUT = 300
P4EMU_TIMEOUT = 120


def v1model_programs(testdata: Path) -> list[Path]:
    out = []
    for folder in FOLDERS:
        for p in sorted((testdata / folder).glob("*.p4")):
            if V1MODEL.search(p.read_text(errors="replace")):
                out.append(p)
    return out


def first_error(text: str) -> str:
    """The line that says what went wrong: p4c puts the location on the same line."""
    for line in text.splitlines():
        if "error" in line.lower() or "compiler bug" in line.lower():
            return line.strip()[:300]
    return text.strip().splitlines()[0][:300] if text.strip() else ""


# ---- p4c: cached ---------------------------------------------------------------------------

def p4c_version(p4c: str) -> str:
    out = subprocess.run([p4c, "--version"], capture_output=True, text=True, timeout=60)
    return " ".join(out.stdout.split())


def run_p4c(p4c: str, program: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="p4c-verdict-") as tmp:
        cmd = [p4c, "--arch", "v1model", "-o", f"{tmp}/out.json",
               "--p4runtime-files", f"{tmp}/out.p4info.txtpb", str(program)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, timeout=P4C_TIMEOUT)
        except subprocess.TimeoutExpired:
            return {"verdict": "crash", "message": f"timeout after {P4C_TIMEOUT} s"}
    text = r.stderr + r.stdout
    if r.returncode == 0:
        verdict = "accept"
    elif r.returncode < 0 or "Compiler Bug" in text:
        verdict = "crash"  # p4c's own internal error: no verdict on the program
    else:
        verdict = "refuse"
    return {"verdict": verdict, "message": first_error(text) if verdict != "accept" else ""}


def p4c_verdicts(p4c: str, programs: list[Path], cache_path: Path, jobs: int) -> dict:
    version = p4c_version(p4c)
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    if cache.get("p4c") != version:
        cache = {"p4c": version, "programs": {}}
    known = cache["programs"]
    keys = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in programs}
    todo = [p for p in programs if known.get(str(p), {}).get("sha256") != keys[p]]
    if todo:
        print(f"p4c: {len(todo)} programs to compile ({version})", file=sys.stderr)
        with ThreadPoolExecutor(jobs) as pool:
            for p, v in zip(todo, pool.map(lambda p: run_p4c(p4c, p), todo), strict=True):
                known[str(p)] = {"sha256": keys[p], **v}
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    return {p: known[str(p)] for p in programs}


# ---- p4emu: fresh, one subprocess per program ----------------------------------------------

def p4emu_one(program: str) -> dict:
    """Runs in the child: compile in-process and classify the outcome."""
    sys.path.insert(0, str(REPO))
    sys.setrecursionlimit(10000)
    from p4emu.frontend import P4CompileError, compile_file

    try:
        compile_file(program)
    except P4CompileError as e:
        verdict = "refuse" if LOCATED.match(str(e)) else "unlocated"
        return {"verdict": verdict, "message": str(e).splitlines()[0][:300]}
    except BaseException as e:  # noqa: BLE001 - anything else is a p4emu bug to report
        return {"verdict": "crash", "message": f"{type(e).__name__}: {e}"[:300]}
    return {"verdict": "accept", "message": ""}


def run_p4emu(program: Path) -> dict:
    cmd = [sys.executable, __file__, "--one", str(program)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=P4EMU_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"verdict": "crash", "message": f"timeout after {P4EMU_TIMEOUT} s"}
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"verdict": "crash", "message": f"rc={r.returncode}: {first_error(r.stderr)}"}


# ---- the table -----------------------------------------------------------------------------

ROWS = (
    ("programs", lambda c, e: True),
    ("p4c accepts", lambda c, e: c == "accept"),
    ("p4c refuses", lambda c, e: c == "refuse"),
    ("p4c crashes (no verdict)", lambda c, e: c == "crash"),
    ("agree", lambda c, e: (c, e) in (("accept", "accept"), ("refuse", "refuse"))),
    ("p4c accepts, p4emu refuses", lambda c, e: c == "accept" and e in ("refuse", "unlocated")),
    ("p4c refuses, p4emu accepts", lambda c, e: c == "refuse" and e == "accept"),
    ("p4emu refuses without file:line:col", lambda c, e: e == "unlocated"),
    ("p4emu crashes", lambda c, e: e == "crash"),
)


def table(results: list[tuple[Path, dict, dict]]) -> str:
    folders = [*FOLDERS, "all"]
    width = max(len(r[0]) for r in ROWS)
    lines = [f"{'':{width}}  " + "  ".join(f"{f:>16}" for f in folders)]
    for label, pred in ROWS:
        cells = []
        for f in folders:
            n = sum(1 for p, c, e in results
                    if (f == "all" or p.parent.name == f) and pred(c["verdict"], e["verdict"]))
            cells.append(f"{n:>16}")
        lines.append(f"{label:{width}}  " + "  ".join(cells))
    return "\n".join(lines)


def details(results: list[tuple[Path, dict, dict]]) -> str:
    groups = {
        "p4c accepts, p4emu refuses": lambda c, e: c == "accept" and e in ("refuse", "unlocated"),
        "p4c refuses, p4emu accepts": lambda c, e: c == "refuse" and e == "accept",
        "p4emu crashes": lambda c, e: e == "crash",
    }
    out = []
    for title, pred in groups.items():
        hits = [(p, c, e) for p, c, e in results if pred(c["verdict"], e["verdict"])]
        out.append(f"\n== {title} ({len(hits)})")
        for p, c, e in hits:
            out.append(f"{p.parent.name}/{p.name}")
            if e["message"]:
                out.append(f"    p4emu: {e['message']}")
            if c["message"]:
                out.append(f"    p4c:   {c['message']}")
    return "\n".join(out)


def intent_table(results: list[tuple[Path, dict]]) -> str:
    """p4emu's verdicts against the folders' intent (no p4c at hand)."""
    lines = []
    for f in FOLDERS:
        mine = [(p, e) for p, e in results if p.parent.name == f]
        counts = {v: sum(1 for _, e in mine if e["verdict"] == v)
                  for v in ("accept", "refuse", "unlocated", "crash")}
        lines.append(f"{f:>18}: {len(mine):4} programs, " +
                     ", ".join(f"{v} {n}" for v, n in counts.items()))
    for title, folder, wrong in (("samples p4emu refuses", "p4_16_samples", "accept"),
                                 ("error programs p4emu accepts", None, "refuse")):
        hits = [(p, e) for p, e in results
                if (p.parent.name == folder if folder else p.parent.name != "p4_16_samples")
                and e["verdict"] != wrong]
        lines.append(f"\n== {title} ({len(hits)})")
        for p, e in hits:
            lines.append(f"{p.parent.name}/{p.name}" + (f"\n    p4emu: {e['message']}"
                                                        if e["message"] else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("testdata", nargs="?", type=Path, help="p4c's testdata directory")
    ap.add_argument("p4c", nargs="?", help="path of p4c-bm2-ss")
    ap.add_argument("--cache", type=Path, default=REPO / "build" / "p4c_verdicts.json")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", metavar="SUBSTRING", help="only programs whose path contains it")
    ap.add_argument("--summary", action="store_true", help="the table only, no per-program list")
    ap.add_argument("--p4emu-only", action="store_true",
                    help="no p4c: judge p4emu against the folders' intent")
    ap.add_argument("--one", metavar="PROGRAM", help=argparse.SUPPRESS)  # the child's mode
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(p4emu_one(args.one)))
        return 0
    if args.testdata is None or (args.p4c is None and not args.p4emu_only):
        ap.error("the p4c testdata directory and the p4c-bm2-ss path are required")
    programs = [p for p in v1model_programs(args.testdata)
                if not args.only or args.only in str(p)]
    if args.p4emu_only:
        with ThreadPoolExecutor(args.jobs) as pool:
            emu = list(pool.map(run_p4emu, programs))
        print(intent_table(list(zip(programs, emu, strict=True))))
        return 0
    p4c = p4c_verdicts(args.p4c, programs, args.cache, args.jobs)
    with ThreadPoolExecutor(args.jobs) as pool:
        emu = list(pool.map(run_p4emu, programs))
    results = [(p, p4c[p], e) for p, e in zip(programs, emu, strict=True)]
    print(table(results))
    if not args.summary:
        print(details(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
