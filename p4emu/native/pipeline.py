"""`NativePipeline`: `p4emu.v1model.pipeline.Pipeline`'s interface over a compiled C
pipeline. One `NativeProgram` (one shared object) per program; one NativePipeline, with
its own C `State`, per switch."""

from __future__ import annotations

import logging
from collections.abc import Callable

from p4emu.compiler import CompiledProgram
from p4emu.native.build import PLACEHOLDER, build
from p4emu.native.cgen import NativeSource, generate
from p4emu.native.compiled_pipeline import CompiledPipeline, EntryPoints
from p4emu.native.errors import NativeUnsupported
from p4emu.native.sync import Mirror, share_counter, share_register
from p4emu.runtime.port_states import PortStates

log = logging.getLogger(__name__)


class NativeProgram:
    """A program's generated C, built and imported."""

    def __init__(self, program: CompiledProgram, source: NativeSource, module) -> None:
        self.program = program
        self.source = source
        self.module = module

    @classmethod
    def load(cls, program: CompiledProgram) -> NativeProgram:
        cached = program.meta.get("native")
        if isinstance(cached, NativeProgram):
            return cached
        if isinstance(cached, NativeUnsupported):
            raise cached
        try:
            source = generate(program, PLACEHOLDER)
        except NativeUnsupported as exc:
            program.meta["native"] = exc
            raise
        native = cls(program, source, build(source.code))
        program.meta["native"] = native
        return native


class NativePipeline(CompiledPipeline):
    """Runs packets through the C pipeline with one switch's `DeviceState`."""

    def __init__(self, native: NativeProgram | CompiledProgram, state, cpu_port: int | None = None,
                 priority_queues: int | None = None):
        if isinstance(native, CompiledProgram):
            native = NativeProgram.load(native)
        self.native = native
        self.program = native.program
        self.state = state
        self.cpu_port = cpu_port
        self.priority_queues = priority_queues
        self.on_enqueue: Callable | None = None
        self.queue_depth = 0
        m = native.module
        self.cstate = m.State()
        self._ingress, self._egress, self._process = m.ingress, m.egress, m.process
        for i, name in enumerate(native.source.registers):
            self.cstate.bind_register(i, share_register(state.registers[name]))
        for i, name in enumerate(native.source.counters):
            self.cstate.bind_counter(i, share_counter(state.counters[name]))
        self.mirror = Mirror(self.cstate, state, native.source.tables)
        port_up = state.port_up
        ports_down = port_up.down_bitmap if isinstance(port_up, PortStates) else None
        self.cstate.set_callbacks(state.rng.randint, port_up, self.mirror.refresh,
                                  self.mirror.dirty, state.pre.replicas, ports_down)
        self.mirror.refresh()

    def entry_points(self) -> EntryPoints:
        return EntryPoints(self._ingress, self._egress, self.cstate)

    def sync(self) -> None:
        """Bring the table entries' hit counters up to date (they lag otherwise until the
        next table change)."""
        self.mirror.sync()

    def close(self) -> None:
        self.mirror.detach()

    # -- the Pipeline interface -------------------------------------------------------------
    def process(self, port: int, data: bytes, now_us: int = 0) -> list[tuple[int, bytes]]:
        """Run one received packet to completion (no queueing)."""
        if self.on_enqueue is None:
            pq = -1 if self.priority_queues is None else self.priority_queues
            return self._process(self.cstate, port, data, now_us, pq, self.queue_depth)
        out: list[tuple[int, bytes]] = []
        for job in self._ingress(self.cstate, port, data, now_us):
            if self.priority_queues is not None and job.priority >= self.priority_queues:
                log.error("priority %d out of range, dropping packet", job.priority)
                continue
            self.on_enqueue(job)
            depth = self.queue_depth
            out.extend(self._egress(self.cstate, job, 0, depth, 0, depth, now_us))
        return out

    def ingress(self, port: int, data: bytes, now_us: int = 0) -> list:
        return self._ingress(self.cstate, port, data, now_us)

    def egress(self, job, *, enq_timestamp: int = 0, enq_qdepth: int = 0, deq_timedelta: int = 0,
               deq_qdepth: int = 0, now_us: int = 0) -> list[tuple[int, bytes]]:
        return self._egress(self.cstate, job, enq_timestamp, enq_qdepth, deq_timedelta,
                            deq_qdepth, now_us)
