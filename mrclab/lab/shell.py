"""`mrclab shell SWITCH`: p4runtime-shell on a switch of the running lab, as a backup client.

The lab's controller holds each switch's primary role with an election id taken from the
clock in milliseconds. The shell arbitrates with election id (0, 1), below any the
controller uses, so the switch makes it a backup: it reads tables, counters, action profile
groups and the P4Info, and its writes are refused, while the controller stays primary and
keeps rerouting. The switch's gRPC address and device id come from the running lab's
`topology.json`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mrclab.fabric.topology_file import read_topology
from p4emu.cmdline import run_main

BACKUP_ELECTION_ID = (0, 1)  # (high, low): lower than any controller election id


class ShellError(ValueError):
    """The shell cannot start; one-line message."""


def shell_argv(topology_path: Path, switch: str) -> list[str]:
    """The p4runtime-shell command line for `switch` of the lab described at topology_path."""
    if not topology_path.is_file():
        raise ShellError(f"{topology_path}: no running lab here (start one with 'mrclab run', "
                         "or give its --build-dir)")
    try:
        topology = read_topology(topology_path)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise ShellError(f"{topology_path}: not a lab topology file ({exc})") from None
    switches = topology.fabric.switches
    if switch not in switches:
        raise ShellError(f"unknown switch {switch!r}; this lab has "
                         f"{', '.join(sorted(switches))}")
    node = switches[switch]
    high, low = BACKUP_ELECTION_ID
    return [sys.executable, "-m", "p4runtime_sh", "--grpc-addr", node.grpc_address,
            "--device-id", str(node.device_id), "--election-id", f"{high},{low}"]


def run(topology_path: Path, switch: str) -> int:
    """Replace this process with the shell (an interactive IPython session)."""
    return run_main("mrclab shell", lambda: _exec_shell(topology_path, switch), {ShellError: 2})


def _exec_shell(topology_path: Path, switch: str) -> int:
    argv = shell_argv(topology_path, switch)
    print(f"p4runtime-shell on {switch} ({argv[argv.index('--grpc-addr') + 1]}), as a backup "
          "client: reads only; the lab's controller stays primary", file=sys.stderr)
    os.execv(argv[0], argv)
    return 0  # not reached
