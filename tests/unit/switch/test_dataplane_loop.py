"""One DataplaneLoop serving several TrafficManagers: forwarding, egress deadlines, removal."""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass

import pytest

from p4emu.runtime.model import ProgramInfo
from p4emu.switch.core import SwitchCore
from p4emu.switch.dataplane_loop import DataplaneLoop
from p4emu.switch.ports import Port, PortSet
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager


@dataclass
class Job:
    port: int
    priority: int
    data: bytes


class CrossPipeline:
    """Port 1 <-> port 2, as a two-port wire."""

    def ingress(self, port, data, now_us):
        return [Job(3 - port, 0, data)]

    def egress(self, job, *, enq_timestamp, enq_qdepth, deq_timedelta, deq_qdepth, now_us):
        return [(job.port, job.data)]


class _Program:
    def __init__(self) -> None:
        self.pipeline = CrossPipeline()
        self.info = ProgramInfo()
        self.cookie = 0


class SocketPorts(PortSet):
    """Ports on socketpairs: the test holds the far end of each."""

    def __init__(self, numbers=(1, 2)) -> None:
        super().__init__()
        self.far: dict[int, socket.socket] = {}
        for number in numbers:
            near, far = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
            near.setblocking(False)
            far.settimeout(2)
            self.ports[number] = Port(number, f"sp{number}", near)
            self.far[number] = far

    def receive(self, port: Port) -> list[bytes]:
        frames = []
        while True:
            try:
                frames.append(port.sock.recv(65536))
            except BlockingIOError:
                return frames

    def send(self, number: int, frame: bytes, start_us: float | None = None) -> bool:
        port = self.ports.get(number)
        if port is None or port.sock is None:
            return False
        port.sock.send(frame)
        return True

    def close(self) -> None:
        super().close()
        for far in self.far.values():
            far.close()


def make_switch(device_id: int, line_rate_bps: float = 0.0) -> tuple[TrafficManager, SocketPorts]:
    core = SwitchCore(device_id=device_id)
    core.program = _Program()  # type: ignore[assignment]
    ports = SocketPorts()
    return TrafficManager(core, ports, QueueSettings(line_rate_bps=line_rate_bps)), ports


# the loop's inner part in C (native_tm_module's EventLoop) and in Python
@pytest.fixture(params=[True, False], ids=["c", "python"])
def native(request):
    return request.param


@pytest.fixture
def two_switches(native):
    (tm_a, ports_a), (tm_b, ports_b) = make_switch(1), make_switch(2, line_rate_bps=80_000)
    loop = DataplaneLoop([tm_a, tm_b], native=native)
    assert loop.native == native
    loop.start()
    try:
        yield loop, (tm_a, ports_a), (tm_b, ports_b)
    finally:
        loop.stop()
        ports_a.close()
        ports_b.close()


def test_one_loop_forwards_for_both_switches(two_switches):
    loop, (_, ports_a), (_, ports_b) = two_switches
    assert loop.tms and len(loop.tms) == 2
    ports_a.far[1].send(b"to-a2")
    ports_b.far[2].send(b"to-b1")
    assert ports_a.far[2].recv(100) == b"to-a2"
    assert ports_b.far[1].recv(100) == b"to-b1"


def test_each_switch_keeps_its_own_egress_deadlines(two_switches):
    _, (_, ports_a), (_, ports_b) = two_switches
    # switch b shapes 80 kb/s: 1000-byte frames leave 100 ms apart; a is unlimited
    start = time.monotonic()
    for i in range(3):
        ports_b.far[1].send(bytes([i]) * 1000)
    ports_a.far[1].send(b"fast")
    assert ports_a.far[2].recv(100) == b"fast"
    assert time.monotonic() - start < 0.08  # not held back by b's queue
    arrivals = []
    for _ in range(3):
        ports_b.far[2].recv(2000)
        arrivals.append(time.monotonic() - start)
    gaps = [b - a for a, b in zip(arrivals, arrivals[1:], strict=False)]
    assert all(0.08 < gap < 0.15 for gap in gaps), gaps


def test_a_removed_switch_stops_forwarding_and_the_other_goes_on(two_switches):
    loop, (tm_a, ports_a), (_, ports_b) = two_switches
    loop.remove(tm_a)
    assert tm_a.loop is None and len(loop.tms) == 1
    ports_a.far[1].send(b"lost")
    ports_b.far[1].send(b"kept")
    assert ports_b.far[2].recv(100) == b"kept"
    ports_a.far[2].settimeout(0.2)
    with pytest.raises(TimeoutError):
        ports_a.far[2].recv(100)


def test_injected_frames_reach_the_switch_they_were_injected_into(two_switches):
    _, (tm_a, ports_a), (tm_b, ports_b) = two_switches
    tm_a.inject(1, b"out-a")
    tm_b.inject(2, b"out-b")
    assert ports_a.far[2].recv(100) == b"out-a"
    assert ports_b.far[1].recv(100) == b"out-b"


def test_a_switch_added_to_a_running_loop_is_served(native):
    loop = DataplaneLoop(native=native)
    loop.start()
    tm, ports = make_switch(3)
    try:
        loop.add(tm)
        ports.far[2].send(b"late")
        assert ports.far[1].recv(100) == b"late"
    finally:
        loop.stop()
        ports.close()


def test_a_wake_up_during_the_drain_is_not_lost(monkeypatch):
    """A wake() whose byte the drain reads must not leave the loop deaf to later ones:
    the loop in C waits for that byte (the flag was once cleared before the drain)."""
    import os
    import select

    from p4emu.switch import dataplane_loop

    loop = DataplaneLoop(native=False)  # not started: the test plays the loop thread
    (tm_a, ports_a), (tm_b, ports_b) = make_switch(1), make_switch(2)
    real_read = os.read
    raced = []

    def read_with_a_wake_in_between(fd, n):
        if not raced:  # another thread's wake() lands while the loop drains
            raced.append(True)
            loop.wake(tm_b)
        return real_read(fd, n)

    try:
        loop.wake(tm_a)
        monkeypatch.setattr(dataplane_loop.os, "read", read_with_a_wake_in_between)
        loop._drain_wake()
        monkeypatch.setattr(dataplane_loop.os, "read", real_read)
        assert list(loop._woken) == [tm_a, tm_b]  # both are served after the drain
        loop._woken.clear()
        loop.wake(tm_a)  # a later wake-up makes the pipe readable
        assert select.select([loop._wake_r], [], [], 0)[0]
    finally:
        loop.stop()
        ports_a.close()
        ports_b.close()


def test_a_switch_removed_from_inside_the_loop_is_removed_after_its_round(native):
    """A change asked for by code the loop itself runs (a switch's serve) must not pull
    a switch out from under the round that is serving it (the C loop holds them)."""
    (tm_a, ports_a), (tm_b, ports_b) = make_switch(1), make_switch(2)
    removed = []
    serve = tm_a.serve

    def serve_then_remove_b():
        if not removed:
            removed.append(True)
            loop.remove(tm_b)
        return serve()

    tm_a.serve = serve_then_remove_b  # before the loop takes its entry points
    loop = DataplaneLoop([tm_a, tm_b], native=native)
    loop.start()
    try:
        ports_a.far[1].send(b"to-a2")
        assert ports_a.far[2].recv(100) == b"to-a2"
        deadline = time.monotonic() + 2
        while len(loop.tms) != 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert loop.tms == [tm_a] and tm_b.loop is None
        ports_a.far[2].send(b"still")
        assert ports_a.far[1].recv(100) == b"still"
    finally:
        loop.stop()
        ports_a.close()
        ports_b.close()
