"""A running lab: fabric network + compiled program + controller process.

Used by `mrclab run`, the demo, the benchmark and the integration tests:

    with Lab(LabConfig(spec="fattree:k=4")) as lab:
        lab.start()
        lab.net.net.pingAll()
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from mrclab.control.command import controller_args, controller_command
from mrclab.control.protocol import SOCKET_NAME, ControlClientError, request
from mrclab.control.status import ControllerStatus
from mrclab.fabric.generators import PortBases
from mrclab.fabric.reconvergence import Reconvergence
from mrclab.fabric.spec import parse_spec
from mrclab.fabric.topology_file import TopologyFile, write_topology
from mrclab.lab.cleanup import clean_leftovers, record_run
from mrclab.lab.target import DEFAULT_PROGRAM, compile_program, resolve_target
from mrclab.mininet import link_failure
from mrclab.mininet.network import FabricNetwork, timed_step
from mrclab.mininet.queues import QueueOptions, bmv2_rate_summary
from mrclab.mininet.switch_cli import SwitchConfigError
from mrclab.places import default_build_dir, runtime_dir
from mrclab.processes import start_recorded, stop_process_group

log = logging.getLogger(__name__)


class LabError(Exception):
    """The lab could not be brought up; one-line message."""


def cannot_run_here() -> str:
    """'' when this process can run a lab, else why not (one line)."""
    if os.geteuid() != 0:
        return "Mininet needs root (run with sudo)"
    try:
        import mininet.net  # noqa: F401
    except ImportError:
        return "Mininet's Python module is missing (sudo make setup)"
    return ""


@dataclass
class LabConfig:
    spec: str
    target: str = "auto"
    build_dir: Path = field(default_factory=default_build_dir)
    program: Path = DEFAULT_PROGRAM
    spray: str = "ecmp"
    controller_args: list[str] = field(default_factory=list)  # mrclab.control.command
    pcap: bool = False
    queues: QueueOptions = field(default_factory=QueueOptions)
    bases: PortBases = field(default_factory=PortBases)
    ready_timeout: float = 90.0
    run_dir: Path | None = None  # default: runtime_dir(build_dir)
    switch_log: bool = False  # per-packet switch logs (slow: BMv2 loses packets with them)
    link_failure: str = link_failure.DROP
    # p4emu switches per process group (mrclab.mininet.switch_shards): None one process per
    # core, 0 one per switch
    switch_processes: int | None = None
    # `python -m` module of the controller; exercises wrap it to load a student's policy
    controller_module: str = "mrclab.controller"


class Lab:
    def __init__(self, config: LabConfig) -> None:
        self.config = config
        self.build_dir = Path(config.build_dir).resolve()
        self.run_dir = Path(config.run_dir or runtime_dir(self.build_dir))
        self.socket_path = self.run_dir / SOCKET_NAME
        self.topology_path = self.build_dir / "topology.json"
        self.fabric = parse_spec(config.spec, config.bases)  # ValueError on a bad spec
        self.target = resolve_target(config.target)
        self.net: FabricNetwork | None = None
        self.controller: subprocess.Popen[bytes] | None = None
        self.missing_switches: list[str] = []  # switch processes that never opened gRPC
        self.unprogrammed: list[str] = []  # switches the controller could not program
        self.bring_up_s: float | None = None
        self.bring_up_phases: dict[str, float] = {}  # seconds each step of start() took

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- bring-up -------------------------------------------------------------------------
    def start(self) -> float:
        """Bring the whole lab up; returns seconds until the controller reported ready."""
        started = time.monotonic()
        self.bring_up_phases = {}
        clean_leftovers(self.build_dir, self.run_dir)
        record_run(self.run_dir, self.build_dir,
                   [sw.interface(port) for sw in self.fabric.switches.values()
                    for port in sw.ports])
        with timed_step(self.bring_up_phases, "compile_s"):
            program = compile_program(self.target, self.build_dir, self.config.program)
        self.net = FabricNetwork(self.fabric, self.target, self.build_dir,
                                 pcap=self.config.pcap, queues=self.config.queues,
                                 run_dir=self.run_dir, switch_log=self.config.switch_log,
                                 link_failure_method=self.config.link_failure,
                                 switch_processes=self.config.switch_processes)
        line_rate = self.config.queues.line_rate_bps
        if self.target == "bmv2" and line_rate and self.config.queues.rate_pps is None:
            print(f"bmv2 shapes packets: line rate {line_rate} b/s applied per port as "
                  f"{bmv2_rate_summary(self.config.queues, line_rate)}")
        write_topology(self.topology_path, TopologyFile(
            fabric=self.fabric, target=self.target, p4info=str(program.p4info),
            device_config=str(program.device_config)))
        try:
            # the controller starts beside the switches: its sessions retry until each
            # switch's gRPC port opens
            self.missing_switches = self.net.start(on_launched=self.start_controller)
        except SwitchConfigError as exc:
            raise LabError(str(exc)) from None
        self.bring_up_phases.update(self.net.phases)
        with timed_step(self.bring_up_phases, "controller_s"):
            status = self.wait_ready(self.config.ready_timeout)
        self.unprogrammed = list(status.missing)
        self.bring_up_s = time.monotonic() - started
        return self.bring_up_s

    def start_controller(self, extra_args: list[str] | None = None) -> None:
        cmd = controller_command(self.topology_path, self.socket_path,
                                 [*controller_args(spray=self.config.spray),
                                  *self.config.controller_args, *(extra_args or [])],
                                 module=self.config.controller_module)
        self.socket_path.unlink(missing_ok=True)
        self.controller = start_recorded(cmd, self.build_dir / "logs" / "controller.log",
                                         self.run_dir / "controller.pid")

    def wait_ready(self, timeout: float) -> ControllerStatus:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.controller is None or self.controller.poll() is not None:
                raise LabError(f"controller exited: {self._controller_last_line()}")
            try:
                status = ControllerStatus.from_json(
                    request(self.socket_path, "status", timeout=5))
            except ControlClientError:
                status = None
            except ValueError as exc:  # a controller of another version
                raise LabError(str(exc)) from None
            if status is not None and status.ready:
                if status.missing:
                    log.error("fabric up without %s", ", ".join(status.missing))
                return status
            time.sleep(0.2)
        raise LabError(f"controller not ready after {timeout:.0f} s "
                       f"(see {self.build_dir / 'logs' / 'controller.log'})")

    def _controller_last_line(self) -> str:
        try:
            lines = (self.build_dir / "logs" / "controller.log").read_text().splitlines()
        except OSError:
            return "no log"
        return lines[-1] if lines else "no output"

    # --- operations -----------------------------------------------------------------------
    def ask(self, cmd: str, **args: object) -> object:
        return request(self.socket_path, cmd, **args)

    def status(self) -> ControllerStatus:
        """The controller's view of the fabric (ready, sessions, down links)."""
        return ControllerStatus.from_json(self.ask("status"))

    def reconvergences(self) -> list[Reconvergence]:
        """Every link verdict of the controller's life so far and the rewrite it caused."""
        reply = self.ask("reconvergence")
        return [Reconvergence.from_json(r) for r in reply]  # type: ignore[attr-defined]

    def set_link(self, a: str, b: str, up: bool, method: str | None = None) -> None:
        """Fail or restore a link (see FabricNetwork.set_link) and tell the controller when,
        so it can report reconvergence."""
        when = time.time()
        self.net.set_link(a, b, up, method)
        try:
            self.ask("link_command", a=a, b=b, time=when)
        except ControlClientError as exc:
            log.warning("controller not told about the link change: %s", exc)

    def stop_controller(self) -> None:
        if self.controller is not None:
            stop_process_group(self.controller, grace=5.0)
            self.controller = None
        (self.run_dir / "controller.pid").unlink(missing_ok=True)

    def set_port_rate(self, switch: str, port: int, bps: int | None) -> str:
        """Limit one switch port's egress to `bps` (None: unlimited), on either target."""
        try:
            return self.net.switch(switch).set_port_rate(port, bps)
        except SwitchConfigError as exc:
            raise LabError(str(exc)) from None

    def restart_switch(self, name: str) -> None:
        switch = self.net.switch(name)
        switch.kill_process()
        switch.start()
        if not switch.wait_ready(time.monotonic() + 30):
            raise LabError(f"switch {name} did not come back")

    def stop(self) -> None:
        """Stop everything, also after a start cut short at any point: what Mininet's own
        stop did not remove (it was interrupted, or never had the network) is found from
        the run's records."""
        try:
            self.stop_controller()
            if self.net is not None:
                self.net.stop()
        finally:
            self.net = None
            clean_leftovers(self.build_dir, self.run_dir)
            self.socket_path.unlink(missing_ok=True)
