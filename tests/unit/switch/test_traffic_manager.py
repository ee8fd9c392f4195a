"""The data-plane loop without ports: injected frames, priorities, rates, queue metadata."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import pytest

from p4emu.runtime.model import ProgramInfo
from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.ports import PortSet
from p4emu.switch.queues import DropReason
from p4emu.switch.traffic_manager import QueueSettings

CPU = 9


@dataclass
class Job:
    port: int
    priority: int
    data: bytes


class PriorityPipeline:
    """Everything goes to the CPU port with priority = first byte."""

    def __init__(self) -> None:
        self.meta: list[tuple[bytes, int, int]] = []

    def ingress(self, port, data, now_us):
        return [Job(CPU, data[0], data)]

    def egress(self, job, *, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth, now_us):
        self.meta.append((job.data, enq_qdepth, deq_qdepth))
        return [(job.port, job.data)]


class _Program:
    def __init__(self, pipeline) -> None:
        self.pipeline = pipeline
        self.info = ProgramInfo()
        self.cookie = 0


@pytest.fixture
def running(tm_class):
    core = SwitchCore(cpu_port=CPU)
    received: list[bytes] = []
    got_all = threading.Event()

    def packet_in(frame: bytes) -> None:
        received.append(frame)
        got_all.set() if len(received) >= 6 else None

    core.packet_in = packet_in
    tm = tm_class(core, PortSet(), QueueSettings(depth=4, priorities=3))
    pipeline = PriorityPipeline()
    core.program = _Program(pipeline)  # type: ignore[assignment]
    loop = DataplaneLoop([tm])
    loop.start()
    try:
        yield core, tm, pipeline, received, got_all
    finally:
        loop.stop()


def test_strict_priority_and_depth_limit_through_the_loop(running):
    core, tm, pipeline, received, got_all = running
    with core.lock:
        tm.set_rate(20, CPU)  # 50 ms per packet: the burst queues up
    core.inject(1, b"\x00\x00")
    deadline = time.time() + 2
    while not pipeline.meta and time.time() < deadline:
        time.sleep(0.001)
    for i, prio in enumerate([0, 0, 0, 0, 0, 2, 1, 3], start=1):
        core.inject(1, bytes([prio, i]))
    assert got_all.wait(5)
    # the first packet was in service; then high before mid before low; the 5th queued
    # low one found its FIFO full (depth 4); priority 3 has no queue (3 queues)
    assert [bytes(f) for f in received[:6]] == [b"\x00\x00", b"\x02\x06", b"\x01\x07",
                                                b"\x00\x01", b"\x00\x02", b"\x00\x03"]
    q = tm.queue(CPU)
    assert q.drops[DropReason.QUEUE_FULL] == 1
    assert q.drops[DropReason.BAD_PRIORITY] == 1
    depths = {data: enq for data, enq, _ in pipeline.meta}
    # enq_qdepth counts the packet's own priority FIFO only (BMv2 >= 1.15.1): the high one
    # found its FIFO empty behind the queued low-priority packets, the low ones did not
    assert depths[b"\x02\x06"] == 0 and depths[b"\x01\x07"] == 0
    assert depths[b"\x00\x03"] >= 2


def test_pipeline_change_discards_queued_packets(running):
    core, tm, pipeline, received, _ = running
    with core.lock:
        tm.set_rate(1, CPU)
    for i in range(3):
        core.inject(1, bytes([0, i]))
    deadline = time.time() + 2
    while tm.queue(CPU).depth < 2 and time.time() < deadline:
        time.sleep(0.01)
    core.install(_Program(PriorityPipeline()))  # type: ignore[arg-type]
    assert tm.queue(CPU).depth == 0


class _VirtualPorts:
    def __init__(self, numbers: list[int]) -> None:
        self.ports = dict.fromkeys(numbers)
        self.sent: list[tuple[int, bytes, float]] = []

    def send(self, number: int, frame: bytes, start_us: float | None = None) -> bool:
        self.sent.append((number, frame, start_us))
        return True


class _ToPortPipeline:
    """Every frame goes to the port named by its first byte."""

    def ingress(self, port, data, now_us):
        return [Job(data[0], 0, data)]

    def egress(self, job, *, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth, now_us):
        return [(job.port, job.data)]


def test_serve_due_returns_the_earliest_ready_time_after_serving(tm_class):
    """On a virtual clock: one pass serves what is due on every port and says when the
    next packet is (the same answer as asking every queue after the pass)."""
    clock = [0]
    core = SwitchCore(clock_ns=lambda: clock[0])
    ports = _VirtualPorts([1, 2, 3])
    tm = tm_class(core, ports, QueueSettings(depth=8, line_rate_bps=8e6))  # 1 B/µs
    core.program = _Program(_ToPortPipeline())  # type: ignore[assignment]
    assert tm.serve_due() is None
    for frame in (bytes([1]) * 100, bytes([1]) * 10, bytes([2]) * 40, bytes([2]) * 5):
        tm.ingress(9, frame)
    assert tm.serve_due() == 40  # port 1 busy until 100 µs, port 2 until 40
    assert [(p, len(f), t) for p, f, t in ports.sent] == [(1, 100, 0.0), (2, 40, 0.0)]
    clock[0] = 45_000
    assert tm.serve_due() == 100
    assert ports.sent[-1][0] == 2 and ports.sent[-1][2] == 40
    expected = min(q.next_ready_us() for q in tm.queues.values() if q.queued)
    assert expected == 100
    clock[0] = 100_000
    assert tm.serve_due() is None
    assert [(p, len(f), t) for p, f, t in ports.sent[2:]] == [(2, 5, 40), (1, 10, 100)]
