"""Differential fuzzing of p4emu's compiled pipeline and traffic manager against the
Python ones, over mrc.p4 and the corpus of tests/p4 (the programs inside the compiled
subset), under AddressSanitizer and UBSan by default.

    python scripts/fuzz_native.py [--frames 1000000] [--minutes 60] [--jobs 2]
        [--seed 1] [--case-frames 2000] [--no-sanitize] [--programs SUBSTRING ...]
        [--out report.json]
    python scripts/fuzz_native.py --replay KIND PROGRAM SEED FRAMES [--no-sanitize]

mrc.p4 (with tests/p4/mrc/*.stf and scripts/bench_mrc.stf) takes 30 % of the frames, the
other programs share the rest evenly; every fifth case of a program drives the traffic
managers (Python TM + Python pipeline against compiled TM + compiled pipeline) instead
of the pipelines alone. Prints frames tried, frames per second, differences and
sanitizer reports (each with its seed, program, frame and writes); exit status 1 when
there is any. `--replay` runs one case again in this process (sanitized: in a child),
printing each frame before it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from p4emu.fuzz.cases import Target  # noqa: E402
from p4emu.fuzz.driver import plan_cases, run  # noqa: E402

SUITES = ("checksums_hashes", "control_flow", "expressions", "externs", "language", "parser",
          "tables", "tutorials", "v1model_semantics")
MRC = "mrc.p4"
MRC_SHARE = 0.3


def stf_files(program: Path) -> list[Path]:
    """`NAME.stf` and `NAME.<case>.stf` of `NAME.p4` (the corpus's convention)."""
    return sorted(s for s in program.parent.glob(program.stem + "*.stf")
                  if s.name.split(".")[0] == program.stem)


def corpus(root: Path = ROOT) -> list[Target]:
    """mrc.p4 and every program of tests/p4 with STF files (outside the subset or not)."""
    p4 = root / "tests" / "p4"
    targets = [Target(MRC, root / "mrclab" / "p4src" / "mrc.p4",
                      tuple(sorted((p4 / "mrc").glob("*.stf")))
                      + (root / "scripts" / "bench_mrc.stf",))]
    programs = sorted(p4.glob("*.p4")) + sorted(p for s in SUITES for p in (p4 / s).glob("*.p4"))
    for program in programs:
        stfs = stf_files(program)
        if stfs:
            targets.append(Target(str(program.relative_to(p4)), program, tuple(stfs)))
    return targets


def inside_subset(targets: list[Target]) -> tuple[list[Target], list[str]]:
    """The targets p4emu.native compiles (C generated, not built), and the others' names."""
    from p4emu.compiler import load_ir
    from p4emu.frontend import compile_file
    from p4emu.native import NativeUnsupported
    from p4emu.native.cgen import generate

    keep, refused = [], []
    for t in targets:
        try:
            generate(load_ir(compile_file(str(t.program)).ir))
        except NativeUnsupported:
            refused.append(t.name)
            continue
        keep.append(t)
    return keep, refused


def _parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=1_000_000, help="frames in all (default 1 M)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="start no case after this many minutes")
    ap.add_argument("--jobs", type=int, default=2, help="child processes at a time")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--case-frames", type=int, default=2000)
    ap.add_argument("--no-sanitize", dest="sanitize", action="store_false",
                    help="the normal build (default: address,undefined)")
    ap.add_argument("--programs", nargs="*", default=None,
                    help="only the programs whose name contains one of these")
    ap.add_argument("--out", help="write the summary as JSON here")
    ap.add_argument("--replay", nargs=4, metavar=("KIND", "PROGRAM", "SEED", "FRAMES"))
    return ap.parse_args(argv)


def replay(args: argparse.Namespace, targets: list[Target]) -> int:
    kind, name, seed, frames = args.replay
    case = [kind, name, int(seed), int(frames)]
    plan = {"targets": [t.to_json() for t in targets if t.name == name], "cases": [case],
            "trace": True}
    if not plan["targets"]:
        print(f"fuzz_native: no program {name!r}", file=sys.stderr)
        return 2
    from p4emu.fuzz.driver import Runner

    runner = Runner(args.sanitize)
    proc = subprocess.Popen([runner.python, "-m", "p4emu.fuzz.worker"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=runner.env, text=True)
    proc.stdin.write(json.dumps(plan))
    proc.stdin.close()
    status = 0
    for line in proc.stdout:
        event = json.loads(line)
        if event["event"] == "frame":
            print(f"frame {event['i']} port {event['port']}: {event['frame']}")
        elif event["event"] == "done":
            result = event["result"]
            print(f"{result['frames']} frames, {len(result['findings'])} findings")
            for f in result["findings"]:
                print(json.dumps(f, indent=1))
                status = 1
    return proc.wait() or status


def main(argv: list[str] | None = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    os.chdir(ROOT)
    targets = corpus()
    if args.programs:
        targets = [t for t in targets if any(s in t.name for s in args.programs)]
    if args.replay:
        return replay(args, targets)
    t0 = time.time()
    targets, refused = inside_subset(targets)
    print(f"fuzz: {len(targets)} programs inside the compiled subset ({len(refused)} outside, "
          f"skipped), {time.time() - t0:.1f} s to check", flush=True)
    shares = {MRC: MRC_SHARE} if any(t.name == MRC for t in targets) and len(targets) > 1 else {}
    cases = plan_cases(targets, args.frames, args.seed, args.case_frames, shares=shares)
    print(f"fuzz: {args.frames} frames planned in {len(cases)} cases, {args.jobs} workers, "
          f"{'sanitized (address,undefined)' if args.sanitize else 'normal'} build"
          + (f", at most {args.minutes} min" if args.minutes else ""), flush=True)

    def progress(summary) -> None:
        print(f"  ... {summary.frames} frames tried, {summary.differences} differences, "
              f"{summary.sanitizer_reports} sanitizer reports, {summary.crashes} crashes "
              f"({summary.seconds:.0f} s)", flush=True)

    summary = run(targets, cases, sanitize=args.sanitize, jobs=args.jobs,
                  seconds=args.minutes * 60 if args.minutes else None, progress=progress)
    for line in summary.lines():
        print(line)
    if args.out:
        Path(args.out).write_text(json.dumps(summary.to_json(), indent=1))
    return 1 if summary.findings else 0


if __name__ == "__main__":
    sys.exit(main())
