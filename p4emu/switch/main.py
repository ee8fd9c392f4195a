"""`python -m p4emu switch ...`: one simple_switch_grpc-compatible switch per process."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path

from google.protobuf import text_format
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2

from p4emu.switch.core import SwitchCore
from p4emu.switch.device_config import device_data, foreign_config_reason
from p4emu.switch.grpc_server import serve
from p4emu.switch.options import LOG_LEVELS, SwitchOptions, UsageError, parse_switch_args
from p4emu.switch.p4rt_errors import P4RTError
from p4emu.switch.pcap import PortPcaps
from p4emu.switch.port_oper_state import PortOperState
from p4emu.switch.ports import PortSet
from p4emu.switch.program import Loader, build_program, ir_loader
from p4emu.switch.runtime_control import RuntimeCommands, RuntimeControlServer
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

log = logging.getLogger("p4emu.switch")


class StartupError(Exception):
    """The switch cannot start; the message is the one line to print."""


def setup_logging(opts: SwitchOptions) -> None:
    logging.addLevelName(5, "TRACE")
    level = LOG_LEVELS[opts.log_level]
    root = logging.getLogger()
    root.setLevel(level)
    fmt = logging.Formatter("[%(asctime)s.%(msecs)03d] [p4emu %(name)s] %(levelname)s "
                            "%(message)s", "%H:%M:%S")
    handlers: list[logging.Handler] = []
    if opts.log_console:
        handlers.append(logging.StreamHandler(sys.stdout))
    if opts.log_file:
        handlers.append(logging.FileHandler(opts.log_file))
    if not handlers:  # like BMv2 without logging options: only problems, on stderr
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.WARNING)
        handlers.append(handler)
    for handler in handlers:
        handler.setFormatter(fmt)
        root.addHandler(handler)


def _p4info_beside(path: Path) -> p4info_pb2.P4Info:
    """The P4Info written next to an IR file by `p4emu compile`, if any."""
    stem = path.name.removesuffix(".json")
    for name in (f"{stem}.p4info.txtpb", f"{stem}.p4info.txt", f"{stem}.p4info.pb.txt"):
        candidate = path.with_name(name)
        if candidate.exists():
            return text_format.Parse(candidate.read_text(), p4info_pb2.P4Info(),
                                     allow_unknown_field=True)
    return p4info_pb2.P4Info()


def _p4info_of_ir(ir: bytes) -> p4info_pb2.P4Info:
    """The P4Info of an IR itself, as simple_switch_grpc needs none beside its JSON."""
    from p4emu.compiler import load_ir

    data = device_data(ir)
    foreign = foreign_config_reason(data)
    if foreign is not None:
        raise P4RTError(code_pb2.INVALID_ARGUMENT, foreign)
    return load_ir(data).p4info


def load_initial_program(path_text: str, loader: Loader, core: SwitchCore) -> None:
    path = Path(path_text)
    if not path.is_file():
        raise StartupError(f"program {path_text}: no such file")
    try:
        if path.suffix == ".p4":
            from p4emu.frontend import compile_file

            result = compile_file(str(path))
            ir, p4info = result.ir, result.p4info
            if isinstance(p4info, str | bytes):
                p4info = text_format.Parse(p4info, p4info_pb2.P4Info())
        else:
            ir, p4info = path.read_bytes(), _p4info_beside(path)
            if p4info.ByteSize() == 0:
                p4info = _p4info_of_ir(ir)
        # a P4Info found beside the file is checked against the program
        program = build_program(loader, p4info, ir, 0, port_up=core.port_up,
                                clock_us=core.clock_us)
    except P4RTError as exc:
        raise StartupError(f"program {path_text}: {exc.message}") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise StartupError(f"program {path_text}: {exc}") from None
    except Exception as exc:  # compile errors carry their own file:line:col text
        raise StartupError(f"program {path_text}: {exc}") from None
    core.install(program)


def run(opts: SwitchOptions, stop: threading.Event) -> None:
    core = SwitchCore(opts.device_id, opts.cpu_port)
    ports = PortSet()
    pcaps = None
    monitor = None
    server = service = control = tm = None
    try:
        for number, iface in sorted(opts.interfaces.items()):
            try:
                ports.add(number, iface)
            except OSError as exc:
                raise StartupError(f"-i {number}@{iface}: {exc.strerror or exc}") from None
        if opts.pcap_dir is not None:
            pcaps = PortPcaps(opts.pcap_dir)
            for number, iface in opts.interfaces.items():
                pcaps.add_port(number, iface)
        monitor = PortOperState(opts.interfaces)
        core.port_up = monitor.is_up
        settings = QueueSettings(opts.queue_depth, opts.queue_rate, opts.line_rate,
                                 opts.priority_queues, dict(opts.priority_depths))
        tm = TrafficManager(core, ports, settings, pcaps)
        loader = ir_loader(opts.cpu_port)
        if opts.program:
            load_initial_program(opts.program, loader, core)
        try:
            server, service, _ = serve(core, loader, opts.grpc_addr)
        except (OSError, RuntimeError) as exc:
            raise StartupError(f"--grpc-server-addr {opts.grpc_addr}: {exc}") from None
        commands = RuntimeCommands(core, tm, ports, monitor.is_up)
        try:
            control = RuntimeControlServer(("127.0.0.1", opts.thrift_port), commands)
        except OSError as exc:
            raise StartupError(f"--thrift-port {opts.thrift_port}: "
                               f"{exc.strerror or exc}") from None
        control.start()
        tm.start()
        monitor.start()
        log.info("switch running: device id %d, %d ports, cpu port %s", opts.device_id,
                 len(opts.interfaces), opts.cpu_port)
        stop.wait()
        log.info("switch stopping")
    finally:
        if control is not None:
            control.stop()
        if server is not None:
            server.stop(grace=0.5).wait()
        if service is not None:
            service.stop()
        if monitor is not None:
            monitor.stop()
        if tm is not None:
            tm.stop()
        ports.close()
        if pcaps is not None:
            pcaps.close()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_switch_args(argv)
    except UsageError as exc:
        print(f"p4emu switch: {exc}", file=sys.stderr)
        return 2
    setup_logging(opts)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: stop.set())
    try:
        run(opts, stop)
    except StartupError as exc:
        print(f"p4emu switch: {exc}", file=sys.stderr)
        return 1
    return 0
