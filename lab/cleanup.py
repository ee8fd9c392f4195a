"""Clean up what a crashed lab run left behind, and only that.

A run records the pid of every process it starts in <run_dir>/<name>.pid (switches,
the controller, Mininet host shells) and the fabric in <build_dir>/topology.json. The next
start kills the recorded processes whose command line still looks like ours and deletes the
switch interfaces listed in the stale topology. Nothing is matched by a broad name, so
other Mininet users on the machine are left alone.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
from pathlib import Path

import psutil

from fabric_model.processes import kill_process_group
from topologies.link_failure import table_name

log = logging.getLogger(__name__)

# substrings one of which the recorded process's command line must contain
OUR_COMMANDS = ("p4emu", "simple_switch", "controller", "mininet:")


def _cmdline(pid: int) -> str:
    try:
        return " ".join(psutil.Process(pid).cmdline())
    except psutil.Error:  # gone, a zombie, or not ours to read
        return ""


def kill_recorded_processes(run_dir: Path) -> list[str]:
    """Kill processes recorded in run_dir/*.pid; returns the names of those killed."""
    killed = []
    if not run_dir.is_dir():
        return killed
    for pid_file in sorted(run_dir.glob("*.pid")):
        try:
            pid = int(pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pid_file.unlink(missing_ok=True)
            continue
        cmdline = _cmdline(pid)
        if cmdline and any(marker in cmdline for marker in OUR_COMMANDS):
            try:
                pgid = os.getpgid(pid)
            except ProcessLookupError:
                pgid = -1
            if pgid == pid:
                kill_process_group(pid)
            else:
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            killed.append(pid_file.stem)
        pid_file.unlink(missing_ok=True)
    return killed


def stale_interfaces(topology_path: Path) -> list[str]:
    """Switch interface names listed in a previous run's topology.json."""
    try:
        data = json.loads(topology_path.read_text())
        return [p["interface"] for s in data["switches"] for p in s["ports"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def existing_interfaces() -> set[str]:
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2:
            names.add(parts[1].strip().split("@")[0])
    return names


def delete_interfaces(names: list[str]) -> list[str]:
    present = existing_interfaces()
    deleted = []
    for name in names:
        if name in present:
            subprocess.run(["ip", "link", "del", name], capture_output=True)
            deleted.append(name)
    return deleted


def delete_failure_tables(names: list[str]) -> None:
    """Drop the link-failure nftables tables a crashed run left on switch interfaces."""
    listed = subprocess.run(["nft", "list", "tables", "netdev"], capture_output=True,
                            text=True).stdout if shutil.which("nft") else ""
    for name in names:
        table = table_name(name)
        if f"table netdev {table}\n" in listed + "\n":
            subprocess.run(["nft", "delete", "table", "netdev", table], capture_output=True)


def clean_leftovers(build_dir: Path, run_dir: Path) -> None:
    """Remove the leftovers of a previous (crashed) run in this build directory."""
    killed = kill_recorded_processes(run_dir)
    topology = build_dir / "topology.json"
    names = stale_interfaces(topology)
    delete_failure_tables(names)
    deleted = delete_interfaces(names) if names else []
    if topology.exists():
        topology.unlink()
    # a fresh fabric starts with every link up
    (run_dir / "controller-links.json").unlink(missing_ok=True)
    if killed or deleted:
        log.warning("cleaned leftovers of a previous run: %d processes (%s), %d interfaces",
                    len(killed), ", ".join(killed), len(deleted))
