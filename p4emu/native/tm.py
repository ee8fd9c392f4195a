"""The traffic manager in C: `NativeTrafficManager`, `TrafficManager` with compiled
egress queues (rt/tm.c) and per-packet loops (rt/tm_serve.c) of the same semantics.

The Python `PortQueues`/`TrafficManager` stay the reference and the fallback; which one
a switch runs is chosen here, in `traffic_manager_class`. Per packet, the C serve loop
calls the compiled pipeline's egress entry point directly (a `NativePipeline`'s module
and C State) and hands frames to `ports.send`; pcaps, the CPU port, errors, bad
priorities and debug logging go through the Python code of `TrafficManager`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from p4emu.native.build import build
from p4emu.switch.queues import Dequeued, DropReason, Enqueued, QueueConfig
from p4emu.switch.traffic_manager import TrafficManager
from p4emu.switch.traffic_manager import log as _tm_log

log = logging.getLogger(__name__)

TRAFFIC_MANAGERS = ("auto", "native", "python")
_RT = Path(__file__).parent / "rt"
_module = None


def tm_module():
    """The built C module (gcc once per source, `p4emu.native.build`'s cache)."""
    global _module
    if _module is None:
        source = (_RT / "tm.c").read_text() + (_RT / "tm_serve.c").read_text()
        module = build(source)
        module.setup(Enqueued, Dequeued, DropReason.QUEUE_FULL, DropReason.BAD_PRIORITY)
        _module = module
    return _module


def compiled_port_queues(config: QueueConfig | None = None, priorities: int = 1,
                         port: int = -1):
    """`PortQueues(config, priorities)` compiled (`port`: the number its errors name)."""
    return tm_module().PortQueues(config or QueueConfig(), priorities, port)


class NativeTrafficManager(TrafficManager):
    """`TrafficManager` whose queues and per-packet loops are compiled."""

    def __init__(self, *args, **kwargs) -> None:
        m = tm_module()
        self._cqueues, self._offer_jobs, self._serve = m.PortQueues, m.offer_jobs, m.serve
        self._ingress_c = m.ingress
        self._seen: object = None  # the program _compiled_entry_points was worked out for
        self._entry_points: tuple | None = None
        super().__init__(*args, **kwargs)

    def _new_queues(self, port: int):
        return self._cqueues(self.settings.config_for(port), self.settings.priorities, port)

    def _compiled_entry_points(self, program) -> tuple | None:
        """(ingress, egress, C State) of a compiled pipeline (the native module's
        functions, called from C without a Python frame), else None."""
        if program is not self._seen:  # tests set core.program without install()
            self._seen = program
            pipeline = program.pipeline
            cstate = getattr(pipeline, "cstate", None)
            self._entry_points = (None if cstate is None
                                  else (pipeline._ingress, pipeline._egress, cstate))
        return self._entry_points

    def ingress(self, port: int, frame: bytes) -> None:
        if self.pcaps is not None or _tm_log.isEnabledFor(logging.DEBUG):
            super().ingress(port, frame)  # pcaps, the per-packet debug line
            return
        with self.core.lock:
            program = self.core.program
            if program is None:
                return
            entry = self._compiled_entry_points(program)
            if entry is None:
                super().ingress(port, frame)
                return
            queue_now, now = self.core.clocks()
            try:
                bad = self._ingress_c(self.queues, self.queue, queue_now, entry[0], entry[2],
                                      port, frame, now)
            except Exception as exc:
                self._internal_error(exc, f"ingress of a {len(frame)}-byte frame from port {port}")
                return
            for job in bad or ():
                self._bad_priority(job)

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
            now, now_us = self.core.clocks()
            entry = self._compiled_entry_points(program)
            egress, cstate = (program.pipeline.egress, None) if entry is None else entry[1:]
            # frames go straight to the ports unless the Python _transmit has work
            # beyond the CPU port (pcaps) or was replaced on the instance (tests do)
            plain = self.pcaps is None and "_transmit" not in self.__dict__
            send = self.ports.send if plain else None
            return self._serve(self.queues, now, now_us, egress, cstate, send,
                               self._transmit, self.core.cpu_port, self._egress_error)


def traffic_manager_class(choice: str, pipeline=None) -> type[TrafficManager]:
    """The traffic manager for `choice` (TRAFFIC_MANAGERS): "python", the reference;
    "native", the compiled one (raises if it does not build); "auto", the compiled one
    for a compiled pipeline (`NativePipeline`) when it builds, else (logged) Python."""
    if choice not in TRAFFIC_MANAGERS:
        raise ValueError(f"traffic manager {choice!r}: expected one of {', '.join(TRAFFIC_MANAGERS)}")
    if choice == "python":
        return TrafficManager
    if choice == "auto":
        from p4emu.native.pipeline import NativePipeline

        if not isinstance(pipeline, NativePipeline):
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
