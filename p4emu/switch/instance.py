"""One switch inside a process: what `p4emu switch` runs once and `p4emu fabric` N times.

A `SwitchInstance` owns its core, ports, pcaps, port oper-state monitor, traffic manager,
P4Runtime server and runtime control; the data-plane loop (and, in a fabric, the port
poller) is shared and only lent to it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from google.protobuf import text_format
from google.rpc import code_pb2
from p4.config.v1 import p4info_pb2

from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.device_config import device_data, foreign_config_reason
from p4emu.switch.grpc_server import serve
from p4emu.switch.native_traffic_manager import traffic_manager_class
from p4emu.switch.options import SwitchOptions
from p4emu.switch.p4rt_errors import P4RTError
from p4emu.switch.pcap import PortPcaps
from p4emu.switch.port_oper_state import PortOperState, SharedPoller
from p4emu.switch.ports import PortSet
from p4emu.switch.program import Loader, build_program, ir_loader
from p4emu.switch.runtime_control import RuntimeCommands, RuntimeControlServer
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

log = logging.getLogger("p4emu.switch")

GRPC_WORKERS = 32


class StartupError(Exception):
    """The switch cannot start; the message is the one line to print."""


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


class SwitchInstance:
    """One switch served by `loop`; `start()` raises StartupError (after undoing what it
    built), `stop()` may be called any number of times, from any thread."""

    def __init__(self, opts: SwitchOptions, loop: DataplaneLoop,
                 poller: SharedPoller | None = None, grpc_workers: int = GRPC_WORKERS,
                 on_stop: Callable[[SwitchInstance], None] = lambda instance: None) -> None:
        self.opts = opts
        self.loop = loop
        self.poller = poller
        self.grpc_workers = grpc_workers
        self.on_stop = on_stop
        self.core = SwitchCore(opts.device_id, opts.cpu_port)
        self.ports = PortSet()
        self.pcaps: PortPcaps | None = None
        self.monitor: PortOperState | None = None
        self.tm: TrafficManager | None = None
        self.server = self.service = self.control = None
        self.stopped = threading.Event()
        self._stop_lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"device {self.opts.device_id}"

    def start(self) -> None:
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        opts = self.opts
        for number, iface in sorted(opts.interfaces.items()):
            try:
                self.ports.add(number, iface)
            except OSError as exc:
                raise StartupError(f"-i {number}@{iface}: {exc.strerror or exc}") from None
        if opts.pcap_dir is not None:
            self.pcaps = PortPcaps(opts.pcap_dir)
            for number, iface in opts.interfaces.items():
                self.pcaps.add_port(number, iface)
        self.monitor = PortOperState(opts.interfaces)
        self.core.port_up = self.monitor.is_up
        settings = QueueSettings(opts.queue_depth, opts.queue_rate, opts.line_rate,
                                 opts.priority_queues, dict(opts.priority_depths))
        try:
            tm_class = traffic_manager_class(opts.traffic_manager)
        except (RuntimeError, OSError) as exc:
            raise StartupError(f"--traffic-manager {opts.traffic_manager}: "
                               f"{str(exc).splitlines()[0]}") from None
        self.tm = tm_class(self.core, self.ports, settings, self.pcaps)
        loader = ir_loader(opts.cpu_port, opts.pipeline)
        if opts.program:
            load_initial_program(opts.program, loader, self.core)
        try:
            self.server, self.service, _ = serve(self.core, loader, opts.grpc_addr,
                                                 self.grpc_workers)
        except (OSError, RuntimeError) as exc:
            raise StartupError(f"--grpc-server-addr {opts.grpc_addr}: {exc}") from None
        commands = RuntimeCommands(self.core, self.tm, self.ports, self.monitor.is_up,
                                   shutdown=self.stop)
        try:
            self.control = RuntimeControlServer(("127.0.0.1", opts.thrift_port), commands)
        except OSError as exc:
            raise StartupError(f"--thrift-port {opts.thrift_port}: "
                               f"{exc.strerror or exc}") from None
        self.control.start()
        self.loop.add(self.tm)
        if self.poller is not None:
            self.poller.add(self.monitor)
        else:
            self.monitor.start()
        log.info("switch running: device id %d, %d ports, cpu port %s", opts.device_id,
                 len(opts.interfaces), opts.cpu_port)

    def stop(self) -> None:
        """Close the P4Runtime and runtime-control ports, leave the loop, close the ports."""
        with self._stop_lock:
            if self.stopped.is_set():
                return
            log.info("switch stopping: device id %d", self.opts.device_id)
            if self.control is not None:
                self.control.stop()
            if self.server is not None:
                self.server.stop(grace=0.5)
            if self.service is not None:
                self.service.stop()
            if self.monitor is not None:
                if self.poller is not None:
                    self.poller.remove(self.monitor)
                self.monitor.stop()
            if self.tm is not None:
                self.loop.remove(self.tm)
            self.ports.close()
            if self.pcaps is not None:
                self.pcaps.close()
            self.stopped.set()
        self.on_stop(self)
