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


DEFAULT_MTU = 1500
MIN_MTU = 576  # the least every IPv4 host must take
MAX_MTU = 9000  # jumbo frames; what veth and both targets carry


# An MRC header alone (a trimmed packet, an ACK or NACK) as an IP packet: IPv4, UDP and
# the 40-byte MRC header (endpoint/wire.py; the topology layer sits below the endpoint's,
# a unit test holds the two equal)
HEADER_PACKET_BYTES = 20 + 8 + 40


def check_mtu(mtu: int) -> None:
    """ValueError (one line) for an MTU the lab cannot give its interfaces."""
    if not MIN_MTU <= mtu <= MAX_MTU:
        raise ValueError(f"MTU {mtu} out of range {MIN_MTU}..{MAX_MTU}")


class SwitchConfigError(Exception):
    """A switch refused a runtime setting; one-line message."""


@dataclass(frozen=True)
class QueueOptions:
    """Egress settings of every switch port (and the MTU of every fabric interface)."""

    priority_queues: int = 2
    depth: int | None = None  # packets
    # packets in the queues above priority 0 (trimmed headers, ACKs, NACKs, probes); None:
    # `depth`. A switch buffers bytes: the 82-byte headers of a trimmed burst fit many
    # times over in the buffer of `depth` full frames.
    high_priority_depth: int | None = None
    rate_pps: int | None = None
    line_rate_bps: int | None = None
    # IP MTU of every host and switch interface; BMv2 shapes packets/s, so a bits/s rate
    # is converted at frames of this size
    mtu: int = DEFAULT_MTU

    def __post_init__(self) -> None:
        check_mtu(self.mtu)

    def pps(self, bps: int) -> int:
        """The BMv2 packet rate carrying `bps` of MTU-sized frames."""
        return bps_to_pps(bps, self.mtu)

    def header_pps(self, bps: int) -> int:
        """The BMv2 packet rate carrying `bps` of header-only packets (higher priorities)."""
        return bps_to_pps(bps, HEADER_PACKET_BYTES)


def bps_to_pps(bps: int, mtu: int = DEFAULT_MTU) -> int:
    """The packet rate BMv2 needs to carry `bps` of MTU-sized frames (at least 1)."""
    return max(1, round(bps / (8 * mtu)))


def bmv2_rate_commands(queues: QueueOptions, port: int, bps: int | None) -> list[str]:
    """simple_switch_CLI commands shaping `port` at `bps` (None: unlimited).

    BMv2 limits each priority queue on its own, in packets/s. The data queue (priority
    0) gets the packet rate of MTU-sized packets at `bps`; the queues above it carry
    headers alone (trimmed packets, ACKs, NACKs) and get the rate of header-sized ones:
    at the data queue's rate an ACK took a whole frame's time, the ACKs of a link's
    reverse flows filled that queue, and they came back seconds late."""
    if bps is None:
        return [f"set_queue_rate 0 {port} {prio}"  # BMv2: 0 pps = no limit
                for prio in range(queues.priority_queues)]
    return [f"set_queue_rate {queues.pps(bps) if prio == 0 else queues.header_pps(bps)} "
            f"{port} {prio}"
            for prio in range(queues.priority_queues)]


def bmv2_rate_summary(queues: QueueOptions, bps: int) -> str:
    """How BMv2 carries `bps` (see `bmv2_rate_commands`), for the user to read."""
    return (f"{queues.pps(bps)} packets/s of {queues.mtu}-byte packets (data), "
            f"{queues.header_pps(bps)} packets/s of headers (higher priorities)")


def bmv2_queue_commands(queues: QueueOptions, ports: list[int]) -> list[str]:
    """simple_switch_CLI commands applying `queues` to every priority of every port.

    A line rate becomes the packet rate of MTU-sized frames (`bmv2_rate_commands`); an
    explicit --queue-rate (packets/s) wins over it, as on p4emu where the tighter limit
    rules."""
    commands = []
    for port in ports:
        if queues.rate_pps is not None:
            rates = [f"set_queue_rate {queues.rate_pps} {port} {prio}"
                     for prio in range(queues.priority_queues)]
        elif queues.line_rate_bps is not None:
            rates = bmv2_rate_commands(queues, port, queues.line_rate_bps)
        else:
            rates = []
        for prio in range(queues.priority_queues):
            depth = queues.depth if prio == 0 else queues.high_priority_depth or queues.depth
            if depth is not None:
                commands.append(f"set_queue_depth {depth} {port} {prio}")
            commands += rates[prio:prio + 1]
    return commands


def run_bmv2_cli(thrift_port: int, commands: list[str], who: str) -> str:
    """Run commands through simple_switch_CLI; SwitchConfigError on any refused one.

    The CLI exits 0 even when a command fails, so its output is read for the error lines
    it prints instead."""
    try:
        proc = subprocess.run(["simple_switch_CLI", "--thrift-port", str(thrift_port)],
                              input="\n".join(commands) + "\n", capture_output=True,
                              text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SwitchConfigError(f"{who}: simple_switch_CLI failed: {exc}") from None
    bad = [ln.strip() for ln in (proc.stdout + proc.stderr).splitlines()
           if ln.strip().startswith(("Error", "Invalid", "Could not", "Traceback"))]
    if proc.returncode != 0 or bad:
        detail = bad[0] if bad else f"exit status {proc.returncode}"
        raise SwitchConfigError(f"{who}: simple_switch_CLI on thrift port {thrift_port}: "
                                f"{detail}")
    return proc.stdout


def switch_command(
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
    """The simple_switch_grpc-style command line for one switch."""
    if target == "bmv2":
        cmd = ["simple_switch_grpc"]
    else:
        cmd = [sys.executable, "-m", "p4emu", "switch"]
    cmd += ["--device-id", str(device_id)]
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


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


RESERVED_PORTS = Path("/proc/sys/net/ipv4/ip_local_reserved_ports")


def reserve_local_ports(ports: list[int], path: Path = RESERVED_PORTS) -> None:
    """Keep the kernel from giving these ports to outgoing connections as their source port.

    The switches' gRPC ports (50100 and up) lie in Linux's ephemeral range (32768-60999),
    and a client's connection once held one when its switch started ("Address already in
    use"). Reserving is system-wide and stays after the run; it only narrows the ports the
    kernel picks by itself."""
    try:
        current = path.read_text().strip()
    except OSError:
        return  # not Linux, or no such sysctl: nothing to protect against
    covered: list[tuple[int, int]] = []
    for part in filter(None, current.split(",")):
        lo, _, hi = part.partition("-")
        covered.append((int(lo), int(hi or lo)))
    missing = sorted({p for p in ports if not any(lo <= p <= hi for lo, hi in covered)})
    if not missing:
        return
    try:
        path.write_text(",".join(filter(None, [current, *map(str, missing)])) + "\n")
    except OSError as exc:  # not root: the lab checks for root before it gets here
        log.warning("cannot reserve ports %s for the switches: %s", missing, exc)


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

    def port_interfaces(self) -> dict[int, str]:
        return {port: intf.name for port, intf in self.intfs.items() if port > 0}

    def command(self) -> list[str]:
        return switch_command(self.target, self.device_id, self.port_interfaces(), self.grpc_port,
                              self.thrift_port, self.cpu_port, self.packet_log, self.pcap_dir,
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
        reserve_local_ports([self.grpc_port, self.thrift_port])
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
        """Wait until the gRPC port accepts connections or `deadline` (monotonic) passes;
        then apply the queue settings BMv2 takes only at run time."""
        while time.monotonic() < deadline:
            if not self.alive():
                return False
            if port_open(self.grpc_port):
                if self.target == "bmv2":
                    commands = bmv2_queue_commands(self.queues, sorted(self.port_interfaces()))
                    if commands:
                        run_bmv2_cli(self.thrift_port, commands, self.name)
                return True
            time.sleep(0.1)
        return False

    def set_port_rate(self, port: int, bps: int | None) -> str:
        """Limit one egress port to `bps` (None: unlimited) while the switch runs.

        p4emu shapes bits/s; BMv2 shapes packets/s per priority queue, so the rate is
        converted at the MTU. Returns what was applied, for the caller to print."""
        if self.target != "bmv2":
            proc = subprocess.run(
                [sys.executable, "-m", "p4emu", "cli", "--thrift-port", str(self.thrift_port),
                 "set_line_rate", str(bps or 0), str(port)],
                capture_output=True, text=True, timeout=30, cwd=REPO_ROOT)
            if proc.returncode != 0:
                raise SwitchConfigError(f"{self.name}: set_line_rate: "
                                        f"{(proc.stderr or proc.stdout).strip()}")
            return f"{self.name} port {port}: {bps or 'unlimited'} b/s"
        run_bmv2_cli(self.thrift_port, bmv2_rate_commands(self.queues, port, bps), self.name)
        if bps is None:
            return f"{self.name} port {port}: unlimited"
        return (f"{self.name} port {port}: {bps} b/s = "
                f"{bmv2_rate_summary(self.queues, bps)} (BMv2 shapes packets)")

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
