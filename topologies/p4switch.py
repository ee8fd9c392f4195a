"""Mininet switch node running `simple_switch_grpc` (bmv2) or `python -m p4emu switch`.

Both take the same command line; the pipeline is pushed later over P4Runtime (`--no-p4`).
The switch process runs in its own process group (stopped as a group), logs to
<log_dir>/<switch>.log and records its pid in <run_dir>/<switch>.pid so that the next run
can clean up after a crash.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from mininet.node import Switch

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parent.parent
STOP_GRACE_S = 2.0


@dataclass(frozen=True)
class QueueOptions:
    priority_queues: int = 2
    depth: int | None = None  # packets
    rate_pps: int | None = None
    line_rate_bps: int | None = None


def switch_command(
    target: str,
    device_id: int,
    ports: dict[int, str],
    grpc_port: int,
    thrift_port: int,
    cpu_port: int,
    log_file: Path,
    pcap_dir: Path | None,
    queues: QueueOptions,
) -> list[str]:
    """The simple_switch_grpc-style command line for one switch."""
    if target == "bmv2":
        cmd = ["simple_switch_grpc"]
    else:
        cmd = [sys.executable, "-m", "p4emu", "switch"]
    cmd += ["--device-id", str(device_id)]
    for port, intf in sorted(ports.items()):
        cmd += ["-i", f"{port}@{intf}"]
    cmd += ["--log-file", str(log_file)]
    if target == "bmv2":
        cmd += ["--log-flush"]
    if pcap_dir is not None:
        cmd += ["--pcap", str(pcap_dir)]
    cmd += ["--no-p4", "--thrift-port", str(thrift_port)]
    if target != "bmv2":
        if queues.depth is not None:
            cmd += ["--queue-depth", str(queues.depth)]
        if queues.rate_pps is not None:
            cmd += ["--queue-rate", str(queues.rate_pps)]
        if queues.line_rate_bps is not None:
            cmd += ["--line-rate", str(queues.line_rate_bps)]
    cmd += ["--", "--grpc-server-addr", f"127.0.0.1:{grpc_port}", "--cpu-port", str(cpu_port),
            "--priority-queues", str(queues.priority_queues)]
    return cmd


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


def kill_process_group(pid: int, grace: float = STOP_GRACE_S) -> None:
    """SIGTERM the group led by pid, SIGKILL it if still alive after `grace` seconds."""
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class P4Switch(Switch):
    """A P4Runtime switch process bound to this node's interfaces."""

    def __init__(
        self,
        name: str,
        device_id: int,
        grpc_port: int,
        thrift_port: int,
        target: str = "p4emu",
        cpu_port: int = 255,
        log_dir: str | Path = "build/logs",
        run_dir: str | Path = "build/run",
        pcap_dir: str | Path | None = None,
        queues: QueueOptions = QueueOptions(),  # noqa: B008 (frozen, never mutated)
        **params: object,
    ) -> None:
        super().__init__(name, dpid=f"{device_id:x}", **params)
        self.device_id = device_id
        self.grpc_port = grpc_port
        self.thrift_port = thrift_port
        self.target = target
        self.cpu_port = cpu_port
        self.log_file = Path(log_dir).resolve() / f"{name}.log"
        self.pid_file = Path(run_dir).resolve() / f"{name}.pid"
        self.pcap_dir = None if pcap_dir is None else Path(pcap_dir).resolve()
        self.queues = queues
        self.process: subprocess.Popen[bytes] | None = None

    def port_interfaces(self) -> dict[int, str]:
        return {port: intf.name for port, intf in self.intfs.items() if port > 0}

    def command(self) -> list[str]:
        return switch_command(self.target, self.device_id, self.port_interfaces(), self.grpc_port,
                              self.thrift_port, self.cpu_port, self.log_file, self.pcap_dir,
                              self.queues)

    def start(self, controllers: list | None = None) -> None:
        """Start the switch process (returns at once; see `wait_ready`)."""
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        if self.pcap_dir is not None:
            self.pcap_dir.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT),
                                                          env.get("PYTHONPATH")]))
        with open(self.log_file, "ab") as out:
            # own session: a group we can kill whole, out of reach of the terminal's ^C
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                            stdout=out, stderr=subprocess.STDOUT,
                                            start_new_session=True, cwd=REPO_ROOT, env=env)
        self.pid_file.write_text(f"{self.process.pid}\n")
        log.debug("%s: started pid %d", self.name, self.process.pid)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def wait_ready(self, deadline: float) -> bool:
        """Wait until the gRPC port accepts connections or `deadline` (monotonic) passes."""
        while time.monotonic() < deadline:
            if not self.alive():
                return False
            if port_open(self.grpc_port):
                if self.target == "bmv2":
                    self._configure_bmv2_queues()
                return True
            time.sleep(0.1)
        return False

    def _configure_bmv2_queues(self) -> None:
        """simple_switch_grpc has no queue flags: set them through its runtime CLI."""
        commands = []
        if self.queues.depth is not None:
            commands.append(f"set_queue_depth {self.queues.depth}")
        if self.queues.rate_pps is not None:
            commands.append(f"set_queue_rate {self.queues.rate_pps}")
        if self.queues.line_rate_bps is not None:
            log.warning("%s: bmv2 has no line rate (p4emu only); ignored", self.name)
        if commands:
            subprocess.run(["simple_switch_CLI", "--thrift-port", str(self.thrift_port)],
                           input="\n".join(commands) + "\n", capture_output=True, text=True,
                           timeout=30)

    def kill_process(self) -> None:
        """Stop the switch process only (interfaces stay): used to simulate a crash."""
        if self.process is not None:
            kill_process_group(self.process.pid)
            self.process.wait()
            self.process = None
        self.pid_file.unlink(missing_ok=True)

    def stop(self, deleteIntfs: bool = True) -> None:  # noqa: N803 (Mininet's signature)
        self.kill_process()
        super().stop(deleteIntfs)

    @classmethod
    def batchShutdown(cls, switches: list[P4Switch]) -> list[P4Switch]:  # noqa: N802
        """Mininet hook: stop all switch processes at once (one grace period, not N)."""
        running = [sw for sw in switches if sw.process is not None]
        for sw in running:
            try:
                os.killpg(sw.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + STOP_GRACE_S
        for sw in running:
            try:
                sw.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for sw in switches:
            sw.kill_process()  # SIGKILLs what is left, reaps, removes the pid file
            Switch.stop(sw, deleteIntfs=True)
        return switches
