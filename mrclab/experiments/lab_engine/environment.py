"""What a report states about the machine and software a run used."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from importlib import metadata


def _run(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) \
        else ""


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def environment(target: str, engine: str = "lab") -> dict:
    commit = _run(["git", "rev-parse", "--short", "HEAD"]) or "?"
    dirty = _run(["git", "status", "--porcelain", "--untracked-files=no"])
    versions = {"mrclab": f"{_version('mrclab')} (git {commit}{', modified' if dirty else ''})",
                "python": platform.python_version(), "scapy": _version("scapy"),
                "matplotlib": _version("matplotlib"), "kernel": platform.release()}
    if target == "bmv2":
        versions["simple_switch_grpc"] = _run([shutil.which("simple_switch_grpc") or
                                               "simple_switch_grpc", "--version"])
        versions["p4c"] = _run(["p4c-bm2-ss", "--version"])
    queue_model = ("simulator: p4emu's traffic manager on a virtual clock, bits/s per port"
                   if engine == "sim" else "BMv2: packets/s per priority queue"
                   if target == "bmv2" else "p4emu: bits/s line rate per port, one server")
    return {"versions": versions, "queue_model": queue_model,
            "machine": f"{os.cpu_count()} CPUs, {_cpu_model()}",
            "load_start": [round(x, 2) for x in os.getloadavg()]}
