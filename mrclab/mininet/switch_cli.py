"""Runtime settings of a running switch through its Thrift-port CLI: simple_switch_CLI on
BMv2, `python -m p4emu cli` on p4emu (same stdin commands, same error lines)."""

from __future__ import annotations

import subprocess
import sys

from mrclab.mininet.queues import QueueOptions, bmv2_rate_commands, bmv2_rate_summary
from mrclab.places import child_env


class SwitchConfigError(Exception):
    """A switch refused a runtime setting; one-line message."""


def run_switch_cli(target: str, thrift_port: int, commands: list[str], who: str) -> str:
    """Run commands through the target's CLI; SwitchConfigError on any refused one.

    simple_switch_CLI exits 0 even when a command fails, so its output is read for the
    error lines it prints instead."""
    if target == "bmv2":
        tool, argv = "simple_switch_CLI", ["simple_switch_CLI"]
    else:
        tool, argv = "p4emu cli", [sys.executable, "-m", "p4emu", "cli"]
    try:
        proc = subprocess.run([*argv, "--thrift-port", str(thrift_port)],
                              input="\n".join(commands) + "\n", capture_output=True,
                              text=True, timeout=60, env=child_env())
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SwitchConfigError(f"{who}: {tool} failed: {exc}") from None
    lines = [ln.strip() for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()]
    bad = [ln for ln in lines
           if ln.startswith(("Error", "Invalid", "Could not", "Traceback", f"{tool}:"))]
    if proc.returncode != 0 or bad:
        detail = bad[0] if bad else f"exit status {proc.returncode}"
        raise SwitchConfigError(f"{who}: {tool} on thrift port {thrift_port}: {detail}")
    return proc.stdout


def port_rate_commands(target: str, queues: QueueOptions, port: int, bps: int | None
                       ) -> list[str]:
    """The CLI commands limiting `port`'s egress to `bps` (None: unlimited). p4emu shapes
    bits/s; BMv2 packets/s per priority queue (`bmv2_rate_commands`)."""
    if target == "bmv2":
        return bmv2_rate_commands(queues, port, bps)
    return [f"set_line_rate {bps or 0} {port}"]


def set_port_rates(target: str, thrift_port: int, queues: QueueOptions,
                   rates: dict[int, int | None], who: str) -> None:
    """Limit each port's egress to its rate (None: unlimited), in one CLI run."""
    run_switch_cli(target, thrift_port,
                   [cmd for port, bps in rates.items()
                    for cmd in port_rate_commands(target, queues, port, bps)], who)


def port_rate_summary(target: str, queues: QueueOptions, port: int, bps: int | None,
                      who: str) -> str:
    """What `set_port_rates` applied to one port, for the user to read."""
    if bps is None:
        return f"{who} port {port}: unlimited"
    if target != "bmv2":
        return f"{who} port {port}: {bps} b/s"
    return (f"{who} port {port}: {bps} b/s = "
            f"{bmv2_rate_summary(queues, bps)} (BMv2 shapes packets)")
