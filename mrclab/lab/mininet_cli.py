"""Mininet CLI with the lab's commands: link_down/link_up, counters, paths, spray, status."""

from __future__ import annotations

import json
import time

from mininet.cli import CLI
from mininet.log import error, output

import mrclab.mininet.plain_loggers  # noqa: F401 (after Mininet: see there)
from mrclab.control.protocol import ControlClientError
from mrclab.fabric.spray import SPRAY_MODES
from mrclab.lab.lab import Lab
from mrclab.mininet.link_failure import METHODS, LinkFailureError


def format_counters(name: str, counters: dict) -> str:
    lines = [f"{name}: port  tx_packets  tx_bytes  trimmed  ecn_marked"]
    for port, row in counters.get("ports", {}).items():
        lines.append(f"{name}: {port:>4}  {row.get('tx_packets', 0):>10}  "
                     f"{row.get('tx_bytes', 0):>8}  {row.get('trimmed', 0):>7}  "
                     f"{row.get('ecn_marked', 0):>10}")
    drops = {k: v for k, v in counters.get("drops", {}).items() if v}
    lines.append(f"{name}: drops {json.dumps(drops) if drops else 'none'}")
    return "\n".join(lines)


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


class LabCLI(CLI):
    prompt = "mrclab> "

    def __init__(self, lab: Lab, script: str | None = None) -> None:
        self.lab = lab  # set before CLI.__init__, which runs the command loop
        super().__init__(lab.net.net, script=script)

    def _ask(self, cmd: str, **args: object) -> object:
        try:
            return self.lab.ask(cmd, **args)
        except ControlClientError as exc:
            error(f"*** {cmd}: {exc}\n")
            return None

    def _link(self, line: str, up: bool) -> None:
        args = line.split()
        if len(args) not in (2, 3) or (len(args) == 3 and args[2] not in METHODS):
            error(f"usage: link_{'up' if up else 'down'} NODE1 NODE2 [{'|'.join(METHODS)}]\n")
            return
        started = time.monotonic()
        try:
            self.lab.set_link(args[0], args[1], up, args[2] if len(args) == 3 else None)
        except (KeyError, LinkFailureError) as exc:
            error(f"*** {exc.args[0]}\n")
            return
        output(f"link {args[0]}-{args[1]} {'up' if up else 'down'} "
               f"({(time.monotonic() - started) * 1000:.0f} ms)\n")

    def do_link_down(self, line: str) -> None:
        """Fail the link between two nodes: link_down A B [drop|admin]
        drop (default): both ends drop all they send, interfaces stay up (a gray failure
        the probes find); admin: interfaces down, which freezes a BMv2 switch."""
        self._link(line, up=False)

    def do_link_up(self, line: str) -> None:
        """Restore the link between two nodes: link_up A B [drop|admin] (as it was failed)"""
        self._link(line, up=True)

    def do_counters(self, line: str) -> None:
        """Per-port tx/trimmed/ECN counters of a switch (read over P4Runtime): counters SW"""
        args = line.split()
        if len(args) != 1:
            error("usage: counters SWITCH\n")
            return
        result = self._ask("counters", switch=args[0])
        if isinstance(result, dict):
            output(format_counters(args[0], result) + "\n")

    def do_paths(self, line: str) -> None:
        """Paths between two hosts in the controller's current view: paths H1 H2"""
        args = line.split()
        if len(args) != 2:
            error("usage: paths HOST1 HOST2\n")
            return
        result = self._ask("paths", src=args[0], dst=args[1])
        if isinstance(result, list):
            for path in result:
                output(f"{args[0]} -> {' -> '.join(path)} -> {args[1]}\n")
            output(f"{len(result)} paths\n")

    def do_spray(self, line: str) -> None:
        """Change the spray mode on every switch: spray ecmp|ev|random|source"""
        args = line.split()
        if len(args) != 1 or args[0] not in SPRAY_MODES:
            error(f"usage: spray {'|'.join(SPRAY_MODES)}\n")
            return
        result = self._ask("spray", mode=args[0])
        if isinstance(result, dict):
            output(f"spray mode {args[0]} ({result['updates']} updates)\n")

    def do_fabric(self, _line: str) -> None:
        """Controller status: readiness, down links, reconvergence events"""
        try:
            status = self.lab.status()
            events = self.lab.reconvergences()
        except (ControlClientError, ValueError) as exc:
            error(f"*** fabric: {exc}\n")
            return
        ready_s = "-" if status.ready_s is None else f"{status.ready_s:.2f} s"
        output(f"ready={status.ready} in {ready_s}, {status.entries} entries, "
               f"down links {status.down_links or 'none'}, "
               f"stalls not taken for failures {status.held_link_verdicts}, "
               f"missing switches {status.missing or 'none'}\n")
        for event in events:
            output(f"{event.link} {event.status}: reprogrammed in "
                   f"{event.program_s:.3f} s on {event.switches} switches; "
                   f"from first missed probe {_seconds(event.total_s)}, "
                   f"from link command {_seconds(event.from_command_s)}\n")
