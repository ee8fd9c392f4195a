"""The compiled traffic manager against the Python one (the reference): random arrivals,
priorities (bad ones too), sizes, egress errors, CPU-port frames and run-time config
changes through both; every dequeued record, frame, time and drop count must agree."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

import pytest

from p4emu.native.compiled_pipeline import CompiledPipeline, EntryPoints
from p4emu.runtime.model import ProgramInfo
from p4emu.switch.core import SwitchCore
from p4emu.switch.native_tm_module import compiled_port_queues
from p4emu.switch.native_traffic_manager import NativeTrafficManager, traffic_manager_class
from p4emu.switch.queues import PortQueues, QueueConfig
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager

CPU = 7


def _queue_trace(make, seed: int) -> list:
    rng = random.Random(seed)
    q = make(QueueConfig(depth=4, priority_depths={1: 6}), 3)
    now, trace, served = 0.0, [], []
    for _ in range(3000):
        op = rng.random()
        now += rng.choice([0, 0.25, 1, 3.5, 17])
        if op < 0.45:
            trace.append(q.offer(rng.randrange(1000), priority=rng.randrange(-1, 4), now_us=now))
        elif op < 0.7:
            d = q.pop(now)
            trace.append(d)
            if d is not None:
                served.append(d)
        elif op < 0.8 and served:
            q.charge(served.pop(0), rng.randrange(0, 9000))
        elif op < 0.85:
            ready = q.next_ready_us()
            trace.append(ready)
            if ready is not None and ready <= now:
                served.append(q.start_service(ready))
                trace.append(served[-1])
        elif op < 0.95:
            config = q.config
            config.rate_pps = rng.choice([0.0, 1e5, 3e5])
            config.line_rate_bps = rng.choice([0.0, 1e9, 8e6 * 3])
            config.depth = rng.randrange(1, 8)
            config.priority_depths = {rng.randrange(4): rng.randrange(1, 9)}
            q.reconfigure()
        elif op < 0.96:
            trace.append(q.clear())
        trace.append((q.depth, q.queued, q.enqueued, q.dequeued, q.busy_until_us,
                      dict(q.drops), [len(f) for f in q.fifos]))
    return trace


@pytest.mark.parametrize("seed", range(5))
def test_queues_agree_op_for_op(seed):
    python, native = _queue_trace(PortQueues, seed), _queue_trace(compiled_port_queues, seed)
    assert len(python) > 3000
    assert python == native


@dataclass
class Job:
    port: int
    priority: int
    data: bytes


class RandomPipeline:
    """Frame: out port, priority, action (0 drop, 1 raise in egress, 2 trim, 4 raise in
    ingress, else keep)."""

    def __init__(self) -> None:
        self.meta: list[tuple] = []

    def ingress(self, port, data, now_us):
        if data[2] == 4:
            raise KeyError("ingress fault")
        return [Job(data[0], data[1], data)]

    def egress(self, job, *, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth, now_us):
        self.meta.append((job.data[3:], enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth,
                          now_us))
        action = job.data[2]
        if action == 0:
            return []
        if action == 1:
            raise ValueError("egress fault")
        return [(job.port, job.data[:40] if action == 2 else job.data)]


class CompiledShapedPipeline(RandomPipeline, CompiledPipeline):
    """RandomPipeline declared compiled: its entry points are module-style functions taking
    a state first, which the compiled traffic manager calls from C."""

    cstate = object()

    def entry_points(self) -> EntryPoints:
        return EntryPoints(self._ingress, self._egress, self.cstate)

    def _ingress(self, cstate, port, data, now_us):
        assert cstate is self.cstate
        return self.ingress(port, data, now_us)

    def _egress(self, cstate, job, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth,
                now_us):
        assert cstate is self.cstate
        return self.egress(job, enq_timestamp=enq_timestamp, enq_qdepth=enq_qdepth,
                           deq_timedelta=deq_timedelta, deq_qdepth=deq_qdepth, now_us=now_us)


class _Program:
    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline
        self.info = ProgramInfo()
        self.cookie = 0


class _Ports:
    def __init__(self) -> None:
        self.ports = dict.fromkeys([1, 2, 3, 4])
        self.sent: list[tuple[int, bytes, float]] = []

    def send(self, number, frame, start_us=None):
        self.sent.append((number, frame, start_us))
        return True


class _Pcaps:
    """PortPcaps' hooks, recorded."""

    def __init__(self) -> None:
        self.log: list[tuple[str, int, bytes]] = []

    def received(self, port, frame):
        self.log.append(("rx", port, frame))

    def sent(self, port, frame):
        self.log.append(("tx", port, frame))


def _tm_trace(cls, pipeline_class, seed: int, pcaps: _Pcaps | None = None):
    rng = random.Random(seed)
    clock = [0]
    core = SwitchCore(cpu_port=CPU, clock_ns=lambda: clock[0])
    packet_ins: list[bytes] = []
    core.packet_in = packet_ins.append
    ports = _Ports()
    tm = cls(core, ports, QueueSettings(depth=5, line_rate_bps=1e10, priorities=2,
                                        priority_depths={1: 9}), pcaps)
    pipeline = pipeline_class()
    core.program = _Program(pipeline)
    returns = []
    for i in range(2500):
        clock[0] += rng.choice([0, 7, 250, 999, 4000])
        if rng.random() < 0.03:
            port = rng.choice([None, 1, 2, 3, CPU, 9])
            change = rng.randrange(3)
            if change == 0:
                tm.set_rate(rng.choice([0.0, 2e5, 1e6]), port)
            elif change == 1:
                tm.set_line_rate(rng.choice([0.0, 1e9, 1e10]), port)
            else:
                tm.set_depth(rng.randrange(1, 7), port, rng.choice([None, 0, 1]))
        for _ in range(rng.choice([0, 1, 1, 2, 5])):
            out = rng.choice([1, 2, 3, 4, CPU, 9])
            prio = rng.choice([0, 0, 1, 1, 2])
            action = rng.choice([0, 1, 2, 3, 3, 3, 3, 3, 4])
            frame = bytes([out, prio, action]) + i.to_bytes(4, "big") + bytes(rng.randrange(60, 1500))
            if rng.random() < 0.5:
                tm.ingress(rng.randrange(1, 5), frame)
            else:  # the simulator's way: ingress and serve at one instant
                returns.append(tm.receive_due(rng.randrange(1, 5), frame))
        returns.append(tm.serve_due())
    drops = {n: dict(q.drops) for n, q in tm.queues.items()}
    return (returns, ports.sent, packet_ins, pipeline.meta, drops,
            (tm.pipeline_errors, tm.last_pipeline_error),
            sorted(tm._bad_priority_ports), {n: q.busy_until_us for n, q in tm.queues.items()})


@pytest.mark.parametrize("pipeline_class", [RandomPipeline, CompiledShapedPipeline])
@pytest.mark.parametrize("seed", range(4))
def test_traffic_managers_agree_frame_for_frame(seed, pipeline_class, caplog):
    caplog.set_level(logging.CRITICAL)  # the pipeline faults log tracebacks
    python = _tm_trace(TrafficManager, pipeline_class, seed)
    native = _tm_trace(NativeTrafficManager, pipeline_class, seed)
    returns, sent, packet_ins, meta, drops, (errors, _), _, _ = python
    assert len(sent) > 1000 and packet_ins and errors > 100 and len(meta) > 1000
    assert sum(d for per_port in drops.values() for d in per_port.values()) > 50
    for part_python, part_native in zip(python, native, strict=True):
        assert part_python == part_native


def test_pcaps_see_the_same_frames_both_ways(caplog):
    caplog.set_level(logging.CRITICAL)
    python_pcaps, native_pcaps = _Pcaps(), _Pcaps()
    python = _tm_trace(TrafficManager, CompiledShapedPipeline, 7, python_pcaps)
    native = _tm_trace(NativeTrafficManager, CompiledShapedPipeline, 7, native_pcaps)
    assert python == native
    assert {kind for kind, _, _ in python_pcaps.log} == {"rx", "tx"}
    assert python_pcaps.log == native_pcaps.log


def test_a_dropped_native_traffic_manager_is_collected():
    """The C Server holds the traffic manager's bound methods (a cycle the GC must see)."""
    import gc
    import weakref

    core = SwitchCore(cpu_port=CPU, clock_ns=lambda: 0)
    tm = NativeTrafficManager(core, _Ports(), QueueSettings())
    core.program = _Program(CompiledShapedPipeline())
    tm.receive_due(1, bytes([2, 0, 3, 0, 0, 0, 0]) + bytes(60))
    ref = weakref.ref(tm)
    del tm, core
    gc.collect()
    assert ref() is None


def test_a_pipeline_is_compiled_by_its_declared_type_alone():
    """The compiled traffic manager calls a pipeline from C when it is a CompiledPipeline,
    not when it merely has what one has."""

    class LooksCompiled(RandomPipeline):
        cstate = object()

        def entry_points(self):
            raise AssertionError("not a CompiledPipeline: never called")

    assert traffic_manager_class("auto", LooksCompiled()) is TrafficManager
    assert traffic_manager_class("auto", CompiledShapedPipeline()) is NativeTrafficManager
    core = SwitchCore(cpu_port=CPU, clock_ns=lambda: 0)
    tm = NativeTrafficManager(core, _Ports(), QueueSettings())
    core.program = _Program(LooksCompiled())
    tm.ingress(1, bytes([2, 0, 3, 0, 0, 0, 0]) + bytes(60))  # through its Python ingress
    assert tm.serve_due() is None and len(tm.ports.sent) == 1
    assert TrafficManager(core, _Ports(), QueueSettings()).fast_path() is None
