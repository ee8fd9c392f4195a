"""Operations on a running lab that experiments need beyond `Lab`'s own: rates on every
switch port, per-port counters of the whole fabric, thresholds, controller events."""

from __future__ import annotations

import logging
import time

from experiments import plans
from fabric_model.control_protocol import ControlClientError
from lab.lab import Lab, LabError
from p4emu.switch.runtime_cli import CliError, RuntimeClient
from topologies.p4switch import SwitchConfigError, bmv2_rate_commands, run_bmv2_cli

log = logging.getLogger(__name__)


def _port_rates(lab: Lab, host_bps: int | None, fabric_bps: int | None
                ) -> dict[str, dict[int, int | None]]:
    """Per switch and port: `host_bps` on ports facing a host, `fabric_bps` on the rest."""
    return {name: {port: host_bps if peer.node in lab.fabric.hosts else fabric_bps
                   for port, peer in sw.ports.items()}
            for name, sw in lab.fabric.switches.items()}


def apply_rates(lab: Lab, host_bps: int | None, fabric_bps: int | None) -> None:
    """Set every egress port's rate while the lab runs (None: unlimited). p4emu shapes
    bits/s; BMv2 packets/s of MTU-sized frames per priority queue."""
    for name, ports in _port_rates(lab, host_bps, fabric_bps).items():
        sw = lab.fabric.switches[name]
        if lab.target == "bmv2":
            cmds = [c for port, bps in ports.items()
                    for c in bmv2_rate_commands(lab.config.queues, port, bps)]
            try:
                run_bmv2_cli(sw.thrift_port, cmds, name)
            except SwitchConfigError as exc:
                raise LabError(str(exc)) from None
            continue
        try:
            client = RuntimeClient("127.0.0.1", sw.thrift_port)
            try:
                for port, bps in ports.items():
                    ok, lines = client.run(f"set_line_rate {bps or 0} {port}")
                    if not ok:
                        raise LabError(f"{name}: set_line_rate: {lines[0] if lines else '?'}")
            finally:
                client.close()
        except CliError as exc:
            raise LabError(f"{name}: {exc}") from None




def counter_delta(before: dict, after: dict) -> dict[str, dict[int, dict[str, int]]]:
    return {sw: {port: {k: v - before.get(sw, {}).get(port, {}).get(k, 0)
                        for k, v in row.items()}
                 for port, row in rows.items()}
            for sw, rows in after.items()}


def restart_controller(lab: Lab, trim: int, ecn: int, spray: str) -> float:
    """Restart the controller with new thresholds; it reads the switches back and writes
    the difference. Returns the seconds until it was ready again."""
    started = time.monotonic()
    lab.stop_controller()
    lab.start_controller(["--trim-threshold", str(trim), "--ecn-threshold", str(ecn),
                          "--spray", spray])
    lab.wait_ready(90)
    return time.monotonic() - started


def reconvergence_events(lab: Lab) -> list[dict]:
    try:
        return list(lab.ask("reconvergence"))
    except ControlClientError as exc:
        log.warning("reconvergence events unavailable: %s", exc)
        return []


def wait_links_up(lab: Lab, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not lab.ask("status")["down_links"]:
            return True
        time.sleep(0.2)
    return False


def core_links(lab: Lab) -> list[tuple[str, int, str, int]]:
    """(agg, agg port, core, core port) of every agg-core link, sorted."""
    return plans.core_links(lab.fabric)
