"""A simulated host NIC: frames at the wire's rate, control frames ahead of queued DATA."""

import random

from mrclab.endpoint.clock import EventLoop
from mrclab.experiments import flowstats, permutation
from mrclab.experiments.config import Options
from mrclab.experiments.sim_engine.session import SimSession
from mrclab.fabric.spec import parse_spec
from mrclab.sim.links import NicQueue, Wire

RATE = 100e9
FRAME = 4096  # 0.32768 us at 100 Gb/s


def _nic() -> tuple[EventLoop, NicQueue, list[tuple[float, bytes]]]:
    loop = EventLoop()
    arrived: list[tuple[float, bytes]] = []
    wire = Wire(loop, RATE, 0.0, 0.0, random.Random(1),
                lambda _port, frame: arrived.append((loop.now, frame)), 1)
    return loop, NicQueue(loop, wire), arrived


def test_data_leaves_back_to_back_at_the_wire_rate():
    loop, nic, arrived = _nic()
    for i in range(3):
        nic.send(bytes([i]) * FRAME)
    loop.run(1e-3)
    frame_time = FRAME * 8 / RATE
    assert [round(t / frame_time, 6) for t, _ in arrived] == [1, 2, 3]


def test_an_ack_waits_for_the_frame_on_the_wire_not_for_the_queued_data():
    # a permutation's host sends its own window and acknowledges another flow on one NIC:
    # behind the window, the ACKs held the other flow's clock for tens of microseconds
    loop, nic, arrived = _nic()
    for i in range(10):
        nic.send(bytes([i]) * FRAME)
    ack = b"A" * 100
    nic.send(ack, urgent=True)
    loop.run(1e-3)
    order = [frame for _, frame in arrived]
    assert order.index(ack) == 1  # after the DATA frame already on the wire
    assert len(arrived) == 11
    frame_time = FRAME * 8 / RATE
    assert arrived[1][0] < 1.1 * frame_time


def test_source_spraying_fills_the_links_of_a_permutation():
    """Source routes spread every window evenly, so nothing marks, the windows grow past a
    BDP and the excess waits in the senders' NICs: with the ACKs behind it, every flow's
    clock stalled (k=4, 100 Gb/s, 100 us flows: slowest 44 % of the link rate; now ~96 %)."""
    setup = permutation.setup(Options(name="permutation", engine="sim", quick=True))
    fabric = parse_spec(setup.spec)
    session = SimSession(fabric, setup, None, progress=lambda _m: None)
    session.set_spray("source")
    plan = permutation.traffic(setup, fabric, 100e-6)
    record = session.run_flows("source", plan, timeout=1.0)
    goodputs, _window = flowstats.window_goodputs(record.flows, 0.0, 40e-6, 10e-6)
    rates = sorted(g / setup.link_rate for g in goodputs)
    assert all(f.ok for f in record.flows)
    assert rates[0] > 0.9, rates[:3]
