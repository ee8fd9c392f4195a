#!/usr/bin/env python3
"""Dump what p4emu's compiler makes of many programs, to compare two versions of p4emu.

    python scripts/dump_p4info.py OUT_DIR [--testdata /opt/p4build/p4c/testdata] [--root DIR]

For every program it accepts: `OUT_DIR/p4info/<name>.txtpb` (the P4Info, text format, as
`p4emu compile --p4runtime-files` writes it) and `OUT_DIR/model/<name>.txt` (the
ProgramInfo, action ids and digest ids the switch runs with); for every program it
refuses, `OUT_DIR/errors/<name>.txt` (the message). Programs: mrclab/p4src/*.p4, the P4 files
under tests/ and mrclab/exercises/material/ (with mrclab/p4src/ on the include path, as the exercises need), and,
when --testdata is given, every v1model program of p4c's p4_16_samples, p4_16_errors and
p4_16_bmv_errors. Compiles in-process, one program after the other, with the p4emu next
to this script (copy it into another checkout to dump that one; --root names the tree
whose programs to read); `diff -r` of two such folders shows what a change changed.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from google.protobuf import text_format  # noqa: E402

from p4emu.frontend import P4CompileError, compile_file  # noqa: E402

FOLDERS = ("p4_16_samples", "p4_16_errors", "p4_16_bmv_errors")
V1MODEL = re.compile(r'^\s*#\s*include\s*[<"]v1model\.p4[>"]', re.M)
TIMEOUT = 120


def repo_programs(root: Path) -> list[tuple[str, Path]]:
    out = []
    for top in ("mrclab", "tests"):
        for p in sorted((root / top).rglob("*.p4")):
            if "integration" in p.parts:
                continue
            rel = p.relative_to(root)
            out.append(("__".join(rel.with_suffix("").parts), p))
    return out


def testdata_programs(testdata: Path) -> list[tuple[str, Path]]:
    out = []
    for folder in FOLDERS:
        for p in sorted((testdata / folder).glob("*.p4")):
            if V1MODEL.search(p.read_text(errors="replace")):
                out.append((f"{folder}__{p.stem}", p))
    return out


def _timeout(signum, frame):
    raise TimeoutError(f"no result after {TIMEOUT} s")


def dump_one(name: str, path: Path, out: Path, include_dirs: tuple[str, ...] = ()) -> str:
    """Compile one program and write its files; returns its verdict."""
    signal.alarm(TIMEOUT)
    try:
        result = compile_file(str(path), include_dirs)
    except P4CompileError as e:
        (out / "errors" / f"{name}.txt").write_text(str(e) + "\n")
        return "refuse"
    except BaseException as e:  # noqa: BLE001 - a p4emu bug: record it, go on
        (out / "errors" / f"{name}.txt").write_text(f"CRASH {type(e).__name__}: {e}\n")
        return "crash"
    finally:
        signal.alarm(0)
    (out / "p4info" / f"{name}.txtpb").write_text(text_format.MessageToString(result.p4info))
    prog = result.program
    model = [repr(result.info), f"action_ids={sorted(prog.action_ids.items())!r}",
             f"digest_ids={sorted(prog.digest_ids.items())!r}",
             f"bindings={sorted(prog.bindings.items())!r}"]
    (out / "model" / f"{name}.txt").write_text("\n".join(model) + "\n")
    return "accept"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--testdata", type=Path, help="p4c's testdata folder")
    ap.add_argument("--root", type=Path, default=REPO, help="the tree whose programs to dump")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(10000)
    signal.signal(signal.SIGALRM, _timeout)
    for sub in ("p4info", "model", "errors"):
        (args.out / sub).mkdir(parents=True, exist_ok=True)
    programs = repo_programs(args.root) + (testdata_programs(args.testdata) if args.testdata else [])
    includes = (str(args.root / "p4src"),)
    counts: dict[str, int] = {}
    for name, path in programs:
        verdict = dump_one(name, path, args.out, includes)
        counts[verdict] = counts.get(verdict, 0) + 1
    print(f"{len(programs)} programs: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
