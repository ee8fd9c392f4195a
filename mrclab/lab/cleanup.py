"""Clean up what a crashed or killed lab run left behind, and only that.

A run records, before it creates them, the pid of every process it starts in
<run_dir>/<name>.pid (switches, the controller, Mininet host shells), its switch
interfaces in <run_dir>/interfaces and its build directory in <run_dir>/build_dir. The next
start in that build directory kills the recorded processes whose command line still looks
like ours and deletes the recorded interfaces; `python -m mrclab.lab.cleanup` (`make clean`) does
it for every run directory there is, so even a run killed with SIGKILL leaves nothing
once it has run. Nothing is matched by a broad name, so other Mininet users on the
machine are left alone.

    python -m mrclab.lab.cleanup
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
from pathlib import Path

import psutil

from mrclab.mininet.link_failure import table_name
from mrclab.places import runtime_base
from mrclab.processes import kill_process_group

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


INTERFACES_FILE = "interfaces"  # in a run dir: the switch interfaces, one per line
BUILD_DIR_FILE = "build_dir"  # in a run dir: the build dir it belongs to


def record_run(run_dir: Path, build_dir: Path, interfaces: list[str]) -> None:
    """Before a lab creates anything: what cleaning up after it will need."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / BUILD_DIR_FILE).write_text(f"{Path(build_dir).resolve()}\n")
    (run_dir / INTERFACES_FILE).write_text("".join(f"{n}\n" for n in interfaces))


def stale_interfaces(topology_path: Path, run_dir: Path | None = None) -> list[str]:
    """Switch interface names a previous run recorded in its run dir, or listed in its
    topology.json (runs from before the record)."""
    if run_dir is not None:
        try:
            return (run_dir / INTERFACES_FILE).read_text().split()
        except OSError:
            pass
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


def clean_leftovers(build_dir: Path, run_dir: Path) -> tuple[int, int]:
    """Remove the leftovers of a previous (crashed) run in this build directory; how many
    processes and interfaces there were."""
    killed = kill_recorded_processes(run_dir)
    topology = build_dir / "topology.json"
    names = stale_interfaces(topology, run_dir)
    delete_failure_tables(names)
    deleted = delete_interfaces(names) if names else []
    if topology.exists():
        topology.unlink()
    (run_dir / INTERFACES_FILE).unlink(missing_ok=True)
    # a fresh fabric starts with every link up
    (run_dir / "controller-links.json").unlink(missing_ok=True)
    if killed or deleted:
        log.warning("cleaned leftovers of a previous run: %d processes (%s), %d interfaces",
                    len(killed), ", ".join(killed), len(deleted))
    return len(killed), len(deleted)


def clean_all(base: Path | None = None) -> tuple[int, int]:
    """Every recorded lab's leftovers under the runtime base; (processes, interfaces)."""
    base = base or runtime_base()
    processes = interfaces = 0
    for run_dir in sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []:
        try:
            build_dir = Path((run_dir / BUILD_DIR_FILE).read_text().strip())
        except OSError:
            build_dir = run_dir  # no record: its pid files alone
        killed, deleted = clean_leftovers(build_dir, run_dir)
        processes, interfaces = processes + killed, interfaces + deleted
    return processes, interfaces


def main() -> int:
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    processes, interfaces = clean_all()
    print(f"mrclab.lab.cleanup: {processes} processes stopped, {interfaces} interfaces deleted "
          f"(run directories under {runtime_base()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
