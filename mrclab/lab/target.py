"""Target choice (p4emu / bmv2 / auto) and compiling the fabric program for it."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from mrclab.places import FABRIC_PROGRAM

log = logging.getLogger(__name__)

DEFAULT_PROGRAM = FABRIC_PROGRAM
TARGETS = ("p4emu", "bmv2", "auto")


class CompileError(Exception):
    """The P4 compiler failed; the message is its first error line."""


BMV2_TOOLS = ("simple_switch_grpc", "p4c-bm2-ss", "simple_switch_CLI")


def missing_bmv2_tools() -> list[str]:
    return [tool for tool in BMV2_TOOLS if shutil.which(tool) is None]


def resolve_target(choice: str) -> str:
    """The concrete target for `choice`; ValueError (one line) if it cannot run here."""
    if choice not in TARGETS:
        raise ValueError(f"unknown target {choice!r} (known: {', '.join(TARGETS)})")
    missing = missing_bmv2_tools()
    if choice == "bmv2" and missing:
        raise ValueError(f"target bmv2 needs {', '.join(missing)} on PATH: install p4lang's "
                         "BMv2 (simple_switch_grpc, with its CLI) and p4c (p4c-bm2-ss), as "
                         "the Vagrant VM does, or use --target p4emu")
    if choice != "auto":
        return choice
    return "p4emu" if missing else "bmv2"


@dataclass(frozen=True)
class CompiledProgram:
    p4info: Path
    device_config: Path


def _up_to_date(outputs: list[Path], source: Path) -> bool:
    sources = [source, *source.parent.glob("*.p4")]
    if not all(o.exists() for o in outputs):
        return False
    newest_source = max(s.stat().st_mtime for s in sources if s.exists())
    return min(o.stat().st_mtime for o in outputs) > newest_source


def compile_program(target: str, build_dir: Path, source: Path = DEFAULT_PROGRAM,
                    force: bool = False) -> CompiledProgram:
    """Compile `source` for the target into build_dir (skipped when outputs are newer)."""
    if not source.exists():
        raise CompileError(f"P4 program {source} not found")
    build_dir.mkdir(parents=True, exist_ok=True)
    stem = source.stem
    p4info = build_dir / f"{stem}.p4info.txtpb"
    if target == "bmv2":
        config = build_dir / f"{stem}.bmv2.json"
        cmd = ["p4c-bm2-ss", "--arch", "v1model", "-o", str(config),
               "--p4runtime-files", str(p4info), str(source)]
    else:
        config = build_dir / f"{stem}.json"
        cmd = [sys.executable, "-m", "p4emu", "compile", str(source),
               "--p4runtime-files", str(p4info), "-o", str(config)]
    result = CompiledProgram(p4info, config)
    if not force and _up_to_date([p4info, config], source):
        log.info("%s is up to date", config)
        return result
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
        raise CompileError(f"compiling {source} for {target} failed: {first}")
    return result
