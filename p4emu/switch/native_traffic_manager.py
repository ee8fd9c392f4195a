"""The traffic manager in C: `NativeTrafficManager`, `TrafficManager` with compiled egress
queues (p4emu/native/rt/tm.c) and per-packet loops (rt/tm_serve.c, rt/tm_server.c) of the
same semantics, and for a lab switch its ports' receive and send (rt/tm_ports.c) and the
`fast_path()` that lets the data-plane loop in C (rt/tm_loop.c) drive it.

The Python `PortQueues`/`TrafficManager` stay the reference and the fallback; which one
a switch runs is chosen here, in `traffic_manager_class`. Per packet, the C serve loop
calls a compiled pipeline's (`p4emu.native.compiled_pipeline.CompiledPipeline`) C entry
points directly and hands frames to `ports.send`; pcaps, the CPU port, errors, bad
priorities and debug logging go through the Python code of `TrafficManager`.

p4emu.native builds the C; this module is its Python face, on the switch's side: the
switch imports p4emu.native, never the other way round.
"""

from __future__ import annotations

import logging

from p4emu.native.compiled_pipeline import CompiledPipeline
from p4emu.switch.native_tm_module import tm_module
from p4emu.switch.ports import Port, PortSet
from p4emu.switch.traffic_manager import TrafficManager
from p4emu.switch.traffic_manager import log as _tm_log

log = logging.getLogger(__name__)

TRAFFIC_MANAGERS = ("auto", "native", "python")


class NativeTrafficManager(TrafficManager):
    """`TrafficManager` whose queues and per-packet loops are compiled."""

    def __init__(self, *args, **kwargs) -> None:
        m = tm_module()
        self._cqueues, self._offer_jobs, self._server_type = m.PortQueues, m.offer_jobs, m.Server
        self._bound: tuple = ((None, None), None)  # ((program, plain), its server)
        super().__init__(*args, **kwargs)

    def _new_queues(self, port: int):
        return self._cqueues(self.settings.config_for(port), self.settings.priorities, port)

    def _server(self, program):
        """The C server for `program`'s pipeline, bound again when the program changes
        (tests set core.program without install()) or `_transmit` must see every frame."""
        # frames go straight to the ports unless the Python _transmit has work beyond
        # the CPU port (pcaps) or was replaced on the instance (tests do)
        plain = self.pcaps is None and "_transmit" not in self.__dict__
        (bound_program, bound_plain), server = self._bound
        if bound_program is not program or bound_plain != plain:
            pipeline = program.pipeline
            if isinstance(pipeline, CompiledPipeline):  # called from C, no Python frame
                ingress, egress, cstate = pipeline.entry_points()
            else:  # its egress called with keywords from C, its ingress from Python
                ingress, egress, cstate = None, pipeline.egress, None
            server = self._server_type(
                self.queues, self.queue, ingress, egress, cstate,
                self.ports.send if plain else None, self._transmit, self.core.cpu_port,
                self._egress_error, self._ingress_error, self._bad_priority,
                *self.core.clock_source())
            if plain and _plain_sockets(self.ports):  # their I/O in C
                for number, port in self.ports.ports.items():
                    if port.sock is not None:
                        server.bind_port(number, port.sock.fileno(), port.stats.counters)
            self._bound = ((program, plain), server)
        return server

    def _ingress_error(self, exc: Exception, where: tuple[int, bytes]) -> None:
        port, frame = where
        self._internal_error(exc, f"ingress of a {len(frame)}-byte frame from port {port}")

    def _python_only(self) -> bool:
        """Frames that the Python ingress handles: pcaps, the per-packet debug line."""
        return self.pcaps is not None or _tm_log.isEnabledFor(logging.DEBUG)

    def fast_path(self):
        """The compiled server a `DataplaneLoop` in C may drive for the current program
        without calling back (its port I/O in C, egress in C), or None: no program, a
        Python pipeline, pcaps or debug logging (read here: the log level is the one the
        switch started with), ports that are not plain sockets, a simulator's clock.
        Call with core.lock held."""
        program = self.core.program
        if (program is None or self._python_only() or not _compiled(program)
                or not _plain_sockets(self.ports) or not self.core.real_time):
            return None
        return self._server(program)

    def receive(self, port: Port) -> None:
        """PortSet.receive and the ingress of each frame in C (recvmmsg: one system call
        for a burst) where `fast_path()` allows, else the Python way."""
        with self.core.lock:
            server = self.fast_path() if port.sock is not None else None
            if server is not None:
                try:
                    dropped = server.receive_port(port.number)
                except OSError as exc:  # the interface went away
                    self.ports.report(port, exc)
                    return
        if server is None:
            super().receive(port)
        elif dropped:
            self.ports.report(port, dropped)

    def ingress(self, port: int, frame: bytes) -> None:
        with self.core.lock:
            program = self.core.program
            if program is None or self._python_only() or not _compiled(program):
                super().ingress(port, frame)
                return
            self._server(program).receive(port, frame)  # as of core.clocks()

    def receive_due(self, port: int, frame: bytes) -> float | None:
        with self.core.lock:
            program = self.core.program
            if (program is None or self._injected or self._python_only()
                    or not _compiled(program)):
                return super().receive_due(port, frame)
            return self._server(program).hop(port, frame)  # as of core.clocks()

    def _enqueue(self, port: int, jobs, queue_now: float) -> None:
        if _tm_log.isEnabledFor(logging.DEBUG):
            super()._enqueue(port, jobs, queue_now)  # the per-packet debug line
            return
        bad = self._offer_jobs(self.queues, jobs, queue_now, self.queue)
        for job in bad or ():
            self._bad_priority(job)

    def _serve_egress(self) -> float | None:
        with self.core.lock:
            program = self.core.program
            if program is None:
                return super()._serve_egress()
            return self._server(program).serve()  # as of core.clocks()


def _plain_sockets(ports) -> bool:
    """Whether `ports` receive and send as PortSet does (not a simulator's or a test's)."""
    kind = type(ports)
    return (isinstance(ports, PortSet) and kind.receive is PortSet.receive
            and kind.send is PortSet.send)


def _compiled(program) -> bool:
    """Whether `program` runs a compiled pipeline (one the C server calls directly)."""
    return isinstance(program.pipeline, CompiledPipeline)


def traffic_manager_class(choice: str, pipeline=None) -> type[TrafficManager]:
    """The traffic manager for `choice` (TRAFFIC_MANAGERS): "python", the reference;
    "native", the compiled one (raises if it does not build); "auto", the compiled one
    when it builds (else, logged, Python) unless `pipeline` is given and is not a
    `CompiledPipeline`, where it gains nothing. A switch whose program comes later over
    P4Runtime passes no pipeline: the compiled one runs any program, a Python pipeline's
    ingress and egress through their Python entry points."""
    if choice not in TRAFFIC_MANAGERS:
        raise ValueError(f"traffic manager {choice!r}: expected one of {', '.join(TRAFFIC_MANAGERS)}")
    if choice == "python":
        return TrafficManager
    if choice == "auto":
        if pipeline is not None and not isinstance(pipeline, CompiledPipeline):
            return TrafficManager
        try:
            tm_module()
        except (RuntimeError, OSError) as exc:
            log.info("compiled traffic manager did not build (%s); running the Python one",
                     str(exc).splitlines()[0])
            return TrafficManager
    else:
        tm_module()
    return NativeTrafficManager
