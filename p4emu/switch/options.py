"""simple_switch_grpc's command line, as Mininet P4 switch classes and the tutorials use it.

``p4emu switch [bmv2 options] [PROGRAM | --no-p4] [-- target options]``. p4emu's queue
options are accepted on either side of ``--``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from p4emu.cmdline import OneLineParser, UsageError
from p4emu.switch.native_traffic_manager import TRAFFIC_MANAGERS
from p4emu.switch.program import PIPELINES

LOG_LEVELS = {"trace": 5, "debug": 10, "info": 20, "warn": 30, "warning": 30, "error": 40,
              "critical": 50, "off": 100}


@dataclass
class SwitchOptions:
    device_id: int = 0
    interfaces: dict[int, str] = field(default_factory=dict)
    log_console: bool = False
    log_level: str = "info"
    log_file: str | None = None
    pcap_dir: str | None = None
    no_p4: bool = False
    program: str | None = None
    thrift_port: int = 9090
    grpc_addr: str = "127.0.0.1:9559"
    cpu_port: int | None = None
    queue_depth: int = 64
    queue_rate: float = 0.0
    line_rate: float = 0.0
    priority_queues: int = 1
    priority_depths: dict[int, int] = field(default_factory=dict)  # priority -> depth
    pipeline: str = "auto"  # p4emu.switch.program.PIPELINES
    traffic_manager: str = "auto"  # native_traffic_manager.TRAFFIC_MANAGERS


def _port_at_iface(text: str) -> tuple[int, str]:
    port, sep, iface = text.partition("@")
    if not sep or not iface:
        raise argparse.ArgumentTypeError(f"interface {text!r} must be PORT@IFACE")
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError(f"interface {text!r}: port must be a number") from None
    if not 0 <= number < 511:
        raise argparse.ArgumentTypeError(f"interface {text!r}: port must be 0..510")
    return number, iface


def _nonneg_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


def _priority_depth(text: str) -> tuple[int, int]:
    prio, sep, depth = text.partition("=")
    try:
        if not sep:
            raise ValueError
        value = int(prio), int(depth)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} must be PRIO=DEPTH") from None
    if value[0] < 0 or value[1] < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: PRIO must be >= 0 and DEPTH >= 1")
    return value


def _add_queue_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--queue-depth", type=_positive_int, default=None)
    parser.add_argument("--queue-rate", type=_nonneg_float, default=None,
                        help="egress service rate, packets/s (0 = unlimited)")
    parser.add_argument("--line-rate", type=_nonneg_float, default=None,
                        help="egress line rate, bits/s (0 = unlimited); p4emu only")
    parser.add_argument("--priority-queues", type=_positive_int, default=None)
    parser.add_argument("--priority-queue-depth", type=_priority_depth, action="append",
                        default=None, metavar="PRIO=DEPTH",
                        help="depth of one priority's queues (BMv2 sets it at run time: "
                             "set_queue_depth DEPTH PORT PRIO); p4emu only")


def _bmv2_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="p4emu switch", add_help=False)
    p.add_argument("--device-id", type=int, default=0)
    p.add_argument("-i", "--interface", action="append", type=_port_at_iface, default=[])
    p.add_argument("--log-console", action="store_true")
    p.add_argument("-L", "--log-level", default="info")
    p.add_argument("--log-file")
    p.add_argument("--log-flush", action="store_true")
    p.add_argument("--pcap", nargs="?", const=".", default=None)
    p.add_argument("--no-p4", action="store_true")
    p.add_argument("--thrift-port", type=int, default=9090)
    # accepted for compatibility, without effect in p4emu
    p.add_argument("--nanolog")
    p.add_argument("--notifications-addr")
    p.add_argument("--debugger", action="store_true")
    p.add_argument("--dump-packet-data", type=int)
    p.add_argument("--restore-state")
    _add_queue_options(p)
    p.add_argument("program", nargs="?")
    return p


def _target_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="p4emu switch --", add_help=False)
    p.add_argument("--grpc-server-addr", default=None)
    p.add_argument("--cpu-port", type=int, default=None)
    p.add_argument("--drop-port", type=int, default=None)
    p.add_argument("--load-modules")
    p.add_argument("--enable-swap", action="store_true")
    p.add_argument("--pipeline", choices=PIPELINES, default="auto",
                   help="auto: p4emu's compiled C pipeline where the program allows, else "
                        "the generated Python one; p4emu only")
    p.add_argument("--traffic-manager", choices=TRAFFIC_MANAGERS, default="auto",
                   help="auto: p4emu's compiled C queues and per-packet loops when they "
                        "build, else the Python ones; p4emu only")
    _add_queue_options(p)
    return p


def parse_switch_args(argv: list[str]) -> SwitchOptions:
    if "--" in argv:
        cut = argv.index("--")
        bmv2_args, target_args = argv[:cut], argv[cut + 1:]
    else:
        bmv2_args, target_args = argv, []
    a = _bmv2_parser().parse_args(bmv2_args)
    t = _target_parser().parse_args(target_args)
    opts = SwitchOptions(device_id=a.device_id, log_console=a.log_console,
                         log_file=a.log_file, pcap_dir=a.pcap, no_p4=a.no_p4,
                         program=a.program, thrift_port=a.thrift_port, pipeline=t.pipeline,
                         traffic_manager=t.traffic_manager)
    if opts.device_id < 0:
        raise UsageError(f"--device-id {opts.device_id} must be >= 0")
    for number, iface in a.interface:
        if number in opts.interfaces:
            raise UsageError(f"port {number} is given twice (-i {number}@{iface})")
        if iface in opts.interfaces.values():
            raise UsageError(f"interface {iface} is given twice")
        opts.interfaces[number] = iface
    level = a.log_level.lower()
    if level not in LOG_LEVELS:
        raise UsageError(f"--log-level {a.log_level!r} is not one of "
                         + ", ".join(sorted(LOG_LEVELS)))
    opts.log_level = level
    if opts.no_p4 and opts.program:
        raise UsageError(f"--no-p4 and a program ({opts.program}) exclude each other")
    if not opts.no_p4 and not opts.program:
        raise UsageError("give a program (IR .json or .p4) or --no-p4")
    if not 0 < opts.thrift_port < 65536:
        raise UsageError(f"--thrift-port {opts.thrift_port} is not a TCP port")
    if t.grpc_server_addr is not None:
        host, sep, port = t.grpc_server_addr.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise UsageError(f"--grpc-server-addr {t.grpc_server_addr!r} must be ADDR:PORT")
        opts.grpc_addr = t.grpc_server_addr
    if t.cpu_port is not None:
        if not 0 < t.cpu_port < 511:
            raise UsageError(f"--cpu-port {t.cpu_port} must fit 9 bits and be neither 0 "
                             "nor 511")
        if t.cpu_port in opts.interfaces:
            raise UsageError(f"--cpu-port {t.cpu_port} is also a data port")
        opts.cpu_port = t.cpu_port
    for name in ("queue_depth", "queue_rate", "line_rate", "priority_queues"):
        value = getattr(t, name) if getattr(t, name) is not None else getattr(a, name)
        if value is not None:
            setattr(opts, name, value)
    if opts.priority_queues > 8:
        raise UsageError(f"--priority-queues {opts.priority_queues}: at most 8 "
                         "(standard_metadata.priority is bit<3>)")
    for prio, depth in (a.priority_queue_depth or []) + (t.priority_queue_depth or []):
        if prio >= opts.priority_queues:
            raise UsageError(f"--priority-queue-depth {prio}={depth}: priorities are "
                             f"0..{opts.priority_queues - 1}")
        opts.priority_depths[prio] = depth
    return opts
