"""Mininet switch node running `simple_switch_grpc` (bmv2) or `python -m p4emu switch`.

Both take the same command line; the pipeline is pushed later over P4Runtime (`--no-p4`).
The switch process runs in its own process group (stopped as a group), writes its output
to <log_dir>/<switch>.log and records its pid in <run_dir>/<switch>.pid so that the next run
can clean up after a crash. Per-packet logging is opt-in (`switch_log`): BMv2 forwards at
about half speed with it and loses packets under bursts.

Queue settings reach p4emu as flags; simple_switch_grpc has none, so they are applied over
Thrift with simple_switch_CLI once the switch listens, per port and priority (data at
the MTU's packet rate, the higher priorities at that of header-sized packets).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path

from mininet.node import Switch

import mrclab.mininet.plain_loggers  # noqa: F401 (after Mininet: see there)
from mrclab.mininet.local_ports import port_open, reserve_local_ports
from mrclab.mininet.queues import QueueOptions, bmv2_queue_commands
from mrclab.mininet.switch_cli import port_rate_summary, run_switch_cli, set_port_rates
from mrclab.mininet.switch_shards import SwitchShard
from mrclab.processes import start_recorded, stop_process_group, stop_process_groups

log = logging.getLogger(__name__)


def switch_program(target: str) -> list[str]:
    return ["simple_switch_grpc"] if target == "bmv2" else [sys.executable, "-m", "p4emu", "switch"]


def switch_command(target: str, *args, **kwargs) -> list[str]:
    """The command line of one switch process; arguments as `switch_args`."""
    return switch_program(target) + switch_args(target, *args, **kwargs)


def switch_args(
    target: str,
    device_id: int,
    ports: dict[int, str],
    grpc_port: int,
    thrift_port: int,
    cpu_port: int,
    log_file: Path | None,
    pcap_dir: Path | None,
    queues: QueueOptions,
) -> list[str]:
    """The simple_switch_grpc-style arguments of one switch (`p4emu switch` and each
    `--switch` of `p4emu fabric` take the same)."""
    cmd = ["--device-id", str(device_id)]
    for port, intf in sorted(ports.items()):
        cmd += ["-i", f"{port}@{intf}"]
    if log_file is not None:  # per-packet log: opt-in, it halves BMv2's speed
        cmd += ["--log-file", str(log_file)]
        if target == "bmv2":
            cmd += ["--log-flush"]
    elif target == "bmv2":
        # BMv2's level defaults to trace even with no log sink: it formats every packet's
        # log lines and discards them, most of the CPU it spends per packet
        cmd += ["--log-level", "off"]
    if pcap_dir is not None:
        cmd += ["--pcap", str(pcap_dir)]
    cmd += ["--no-p4", "--thrift-port", str(thrift_port)]
    if target != "bmv2":
        if queues.depth is not None:
            cmd += ["--queue-depth", str(queues.depth)]
        if queues.high_priority_depth is not None:
            cmd += [arg for prio in range(1, queues.priority_queues)
                    for arg in ("--priority-queue-depth", f"{prio}={queues.high_priority_depth}")]
        if queues.rate_pps is not None:
            cmd += ["--queue-rate", str(queues.rate_pps)]
        if queues.line_rate_bps is not None:
            cmd += ["--line-rate", str(queues.line_rate_bps)]
    cmd += ["--", "--grpc-server-addr", f"127.0.0.1:{grpc_port}", "--cpu-port", str(cpu_port),
            "--priority-queues", str(queues.priority_queues)]
    return cmd


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
        switch_log: bool = False,
        **params: object,
    ) -> None:
        super().__init__(name, dpid=f"{device_id:x}", **params)
        self.device_id = device_id
        self.grpc_port = grpc_port
        self.thrift_port = thrift_port
        self.target = target
        self.cpu_port = cpu_port
        self.log_file = Path(log_dir).resolve() / f"{name}.log"  # process output
        self.packet_log = (Path(log_dir).resolve() / f"{name}.packets.log"
                           if switch_log else None)
        self.pid_file = Path(run_dir).resolve() / f"{name}.pid"
        self.pcap_dir = None if pcap_dir is None else Path(pcap_dir).resolve()
        self.queues = queues
        self.process: subprocess.Popen[bytes] | None = None
        self.shard: SwitchShard | None = None  # see join()

    def port_interfaces(self) -> dict[int, str]:
        return {port: intf.name for port, intf in self.intfs.items() if port > 0}

    def switch_args(self) -> list[str]:
        return switch_args(self.target, self.device_id, self.port_interfaces(), self.grpc_port,
                           self.thrift_port, self.cpu_port, self.packet_log, self.pcap_dir,
                           self.queues)

    def command(self) -> list[str]:
        return switch_program(self.target) + self.switch_args()

    def join(self, shard: SwitchShard) -> None:
        """Run in `shard`'s process instead of one of its own; its output goes there."""
        self.shard = shard
        self.log_file = shard.log_file

    def start(self, controllers: list | None = None) -> None:
        """Start the switch process, or its shard's (returns at once; see `wait_ready`)."""
        if self.pcap_dir is not None:
            self.pcap_dir.mkdir(parents=True, exist_ok=True)
        if self.shard is not None:
            self.shard.start()
            return
        reserve_local_ports([self.grpc_port, self.thrift_port])
        self.process = start_recorded(self.command(), self.log_file, self.pid_file)
        log.debug("%s: started pid %d", self.name, self.process.pid)

    def alive(self) -> bool:
        if self.shard is not None:
            return self.shard.alive()
        return self.process is not None and self.process.poll() is None

    def wait_ready(self, deadline: float) -> bool:
        """Wait until the gRPC port accepts connections or `deadline` (monotonic) passes;
        then apply the queue settings BMv2 takes only at run time."""
        while time.monotonic() < deadline:
            if not self.alive():
                return False
            if port_open(self.grpc_port):
                if self.target == "bmv2":
                    commands = bmv2_queue_commands(self.queues, sorted(self.port_interfaces()))
                    if commands:
                        run_switch_cli("bmv2", self.thrift_port, commands, self.name)
                return True
            time.sleep(0.1)
        return False

    def set_port_rate(self, port: int, bps: int | None) -> str:
        """Limit one egress port to `bps` (None: unlimited) while the switch runs; returns
        what was applied, for the caller to print (SwitchConfigError if refused)."""
        set_port_rates(self.target, self.thrift_port, self.queues, {port: bps}, self.name)
        return port_rate_summary(self.target, self.queues, port, bps, self.name)

    def kill_process(self) -> None:
        """Stop the switch process only (interfaces stay): used to simulate a crash. A
        sharded switch's process is its shard's: every switch of the shard stops."""
        if self.shard is not None:
            self.shard.stop()
            return
        if self.process is not None:
            stop_process_group(self.process)
            self.process = None
        self.pid_file.unlink(missing_ok=True)

    def stop(self, deleteIntfs: bool = True) -> None:  # noqa: N803 (Mininet's signature)
        self.kill_process()
        super().stop(deleteIntfs)

    @classmethod
    def batchShutdown(cls, switches: list[P4Switch]) -> list[P4Switch]:  # noqa: N802
        """Mininet hook: stop all switch processes at once (one grace period, not N)."""
        shards = {id(sw.shard): sw.shard for sw in switches if sw.shard is not None}
        stop_process_groups([*(sw.process for sw in switches if sw.process is not None),
                             *(sh.process for sh in shards.values() if sh.process is not None)])
        for shard in shards.values():
            shard.forget()
        for sw in switches:
            sw.kill_process()  # forgets the reaped process, removes the pid file
            Switch.stop(sw, deleteIntfs=True)
        return switches
