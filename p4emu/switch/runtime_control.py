"""Run-time control of a running switch, with simple_switch_CLI's command names.

Line protocol over TCP (127.0.0.1, the --thrift-port number): the client sends one
command per line; the server answers ``OK <n>`` followed by n lines of output, or
``ERR <message>``. The connection stays open after errors.
"""

from __future__ import annotations

import logging
import socketserver
import threading
from collections.abc import Callable

from p4emu.runtime.counters import CounterArray
from p4emu.runtime.device import DirectCounter
from p4emu.runtime.errors import RuntimeStateError
from p4emu.switch.core import SwitchCore
from p4emu.switch.ports import PortSet
from p4emu.switch.traffic_manager import TrafficManager

log = logging.getLogger(__name__)

MAX_LINE = 4096


class CommandError(Exception):
    """A bad command; the message is sent back as one line."""


def _int(text: str, what: str, low: int = 0, high: int | None = None) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise CommandError(f"{what} must be an integer, got {text!r}") from None
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise CommandError(f"{what} must be {bound}, got {value}")
    return value


def _float(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CommandError(f"{what} must be a number, got {text!r}") from None
    if value < 0:
        raise CommandError(f"{what} must be >= 0, got {text}")
    return value


class RuntimeCommands:
    """Executes one command line against the switch; returns the output lines."""

    HELP = {
        "set_queue_depth": "set_queue_depth DEPTH [PORT [PRIO]]: queue limit in packets "
                           "(without PRIO: each of the port's priority queues)",
        "set_queue_rate": "set_queue_rate RATE_PPS [PORT [PRIO]]: service rate, packets/s "
                          "(0 = unlimited; p4emu: one rate per port)",
        "set_line_rate": "set_line_rate BPS [PORT]: line rate, bits/s (0 = unlimited)",
        "show_ports": "show_ports: port numbers, interfaces and link status",
        "port_stats": "port_stats: rx/tx/drops/queue depth per port",
        "internal_errors": "internal_errors: packets dropped by an internal error of p4emu, "
                           "and the last such error",
        "counter_read": "counter_read NAME INDEX: packets and bytes of a counter cell",
        "register_read": "register_read NAME [INDEX]: one register cell, or all of them",
        "register_write": "register_write NAME INDEX VALUE: set one register cell",
        "register_reset": "register_reset NAME: set every cell to 0",
        "shutdown": "shutdown: stop this switch, as if it crashed: its P4Runtime and "
                    "runtime-control ports close and its ports stop forwarding (p4emu only; "
                    "in `p4emu fabric` the other switches go on)",
        "help": "help [COMMAND]: this list",
    }

    def __init__(self, core: SwitchCore, tm: TrafficManager, ports: PortSet,
                 link_up: Callable[[int], bool] = lambda port: True,
                 shutdown: Callable[[], None] | None = None) -> None:
        self.core = core
        self.tm = tm
        self.ports = ports
        self.link_up = link_up
        self.shutdown = shutdown

    def execute(self, line: str) -> list[str]:
        words = line.split()
        if not words:
            return []
        name, args = words[0], words[1:]
        if name not in self.HELP:
            raise CommandError(f"unknown command {name!r} (try help)")
        try:
            return getattr(self, f"_cmd_{name}")(args)
        except RuntimeStateError as exc:
            raise CommandError(str(exc)) from None
        except TypeError:
            raise CommandError(f"usage: {self.HELP[name]}") from None

    def _port_arg(self, args: list[str], position: int) -> int | None:
        if len(args) <= position:
            return None
        return _int(args[position], "PORT", 0, 511)

    def _priority_arg(self, args: list[str]) -> int | None:
        """simple_switch_CLI's PRIO argument. A depth is per priority queue, as on BMv2;
        p4emu has one server per port, so a rate applies to the whole port."""
        if len(args) == 3:
            return _int(args[2], "PRIO", 0, self.tm.settings.priorities - 1)
        return None

    def _cmd_set_queue_depth(self, args: list[str]) -> list[str]:
        if len(args) not in (1, 2, 3):
            raise TypeError
        depth = _int(args[0], "DEPTH", 1)
        port = self._port_arg(args, 1)
        priority = self._priority_arg(args)
        with self.core.lock:
            self.tm.set_depth(depth, port, priority)
        log.info("queue depth %d on %s%s", depth, "all ports" if port is None else f"port {port}",
                 "" if priority is None else f" priority {priority}")
        return []

    def _cmd_set_queue_rate(self, args: list[str]) -> list[str]:
        if len(args) not in (1, 2, 3):
            raise TypeError
        rate = _float(args[0], "RATE_PPS")
        port = self._port_arg(args, 1)
        self._priority_arg(args)
        with self.core.lock:
            self.tm.set_rate(rate, port)
        log.info("queue rate %g pps on %s", rate, "all ports" if port is None else f"port {port}")
        return []

    def _cmd_set_line_rate(self, args: list[str]) -> list[str]:
        if len(args) not in (1, 2):
            raise TypeError
        bps = _float(args[0], "BPS")
        port = self._port_arg(args, 1)
        with self.core.lock:
            self.tm.set_line_rate(bps, port)
        log.info("line rate %g bps on %s", bps, "all ports" if port is None else f"port {port}")
        return []

    def _cmd_show_ports(self, args: list[str]) -> list[str]:
        if args:
            raise TypeError
        # simple_switch_CLI's layout, so scripts that parse it work on both
        lines = [f"{'port #':^10}{'iface name':^20}{'status':^10}extra info", "=" * 50]
        for number, port in sorted(self.ports.ports.items()):
            status = "UP" if self.link_up(number) else "DOWN"
            lines.append(f"{number:^10}{port.iface:^20}{status:^10}")
        return lines

    def _cmd_port_stats(self, args: list[str]) -> list[str]:
        if args:
            raise TypeError
        lines = [f"{'port':>4} {'rx_pkts':>10} {'rx_bytes':>12} {'tx_pkts':>10} "
                 f"{'tx_bytes':>12} {'rx_drop':>8} {'q_drop':>8} {'q_depth':>7}"]
        with self.core.lock:
            numbers = sorted(set(self.ports.ports) | set(self.tm.queues))
            for number in numbers:
                port = self.ports.ports.get(number)
                q = self.tm.queues.get(number)
                s = port.stats if port else None
                lines.append(
                    f"{number:>4} {s.rx_packets if s else 0:>10} {s.rx_bytes if s else 0:>12} "
                    f"{s.tx_packets if s else 0:>10} {s.tx_bytes if s else 0:>12} "
                    f"{s.rx_dropped if s else 0:>8} {sum(q.drops.values()) if q else 0:>8} "
                    f"{q.depth if q else 0:>7}")
        return lines

    def _cmd_internal_errors(self, args: list[str]) -> list[str]:
        if args:
            raise TypeError
        with self.core.lock:
            count, last = self.tm.pipeline_errors, self.tm.last_pipeline_error
        lines = [f"internal_errors: {count}"]
        if last is not None:
            lines.append(f"last: {last}")
        return lines

    def _state(self):
        program = self.core.program
        if program is None:
            raise CommandError("no forwarding pipeline is set")
        return program.state

    def _cmd_counter_read(self, args: list[str]) -> list[str]:
        if len(args) != 2:
            raise TypeError
        with self.core.lock:
            state = self._state()
            try:
                counter = state.resolve_counter(args[0])
            except KeyError as exc:
                raise CommandError(str(exc.args[0])) from None
            if isinstance(counter, DirectCounter) or not isinstance(counter, CounterArray):
                raise CommandError(f"{counter.info.name} is a direct counter")
            index = _int(args[1], "INDEX")
            data = counter.read(index)
        return [f"{counter.info.name}[{index}]=  BmCounterValue(packets={data.packets}, "
                f"bytes={data.bytes})"]

    def _register(self, name: str):
        try:
            return self._state().resolve_register(name)
        except KeyError as exc:
            raise CommandError(str(exc.args[0])) from None

    def _cmd_register_read(self, args: list[str]) -> list[str]:
        if len(args) not in (1, 2):
            raise TypeError
        with self.core.lock:
            register = self._register(args[0])
            if len(args) == 1:
                values = list(register.values)
                return [f"{register.info.name}= " + ", ".join(map(str, values))]
            index = _int(args[1], "INDEX")
            value = register.get(index)
        return [f"{register.info.name}[{index}]= {value}"]

    def _cmd_register_reset(self, args: list[str]) -> list[str]:
        if len(args) != 1:
            raise TypeError
        with self.core.lock:
            self._register(args[0]).reset()
        return []

    def _cmd_register_write(self, args: list[str]) -> list[str]:
        if len(args) != 3:
            raise TypeError
        with self.core.lock:
            register = self._register(args[0])
            register.set(_int(args[1], "INDEX"), _int(args[2], "VALUE"))
        return []

    def _cmd_shutdown(self, args: list[str]) -> list[str]:
        if args:
            raise TypeError
        if self.shutdown is None:
            raise CommandError("this switch cannot be shut down from here")
        log.info("shutdown requested over the runtime control")
        self.shutdown()  # returns once the switch is stopped; the answer still goes out
        return []

    def _cmd_help(self, args: list[str]) -> list[str]:
        if args:
            if args[0] not in self.HELP:
                raise CommandError(f"unknown command {args[0]!r}")
            return [self.HELP[args[0]]]
        return [self.HELP[name] for name in sorted(self.HELP)]


def answer(commands: RuntimeCommands, line: str) -> str:
    """The wire answer to one request line."""
    try:
        lines = commands.execute(line)
    except CommandError as exc:
        return f"ERR {exc}\n"
    except Exception as exc:  # keep the connection and the switch alive
        log.exception("runtime command %r failed", line)
        return f"ERR internal error: {exc}\n"
    return f"OK {len(lines)}\n" + "".join(f"{out}\n" for out in lines)


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        commands: RuntimeCommands = self.server.commands  # type: ignore[attr-defined]
        while True:
            raw = self.rfile.readline(MAX_LINE)
            if not raw:
                return
            if not raw.endswith(b"\n") and len(raw) >= MAX_LINE:
                self.rfile.readline()  # discard the rest of an overlong line
                reply = "ERR line too long\n"
            else:
                reply = answer(commands, raw.decode("utf-8", "replace").strip())
            try:
                self.wfile.write(reply.encode())
            except OSError:
                return


class RuntimeControlServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], commands: RuntimeCommands) -> None:
        super().__init__(address, _Handler)
        self.commands = commands
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="runtime-control",
                                        daemon=True)
        self._thread.start()
        log.info("runtime control listening on %s:%d", *self.server_address[:2])

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
