"""The pure egress queue model: depth, priorities, rates and BMv2 queue metadata."""

from __future__ import annotations

import pytest

from p4emu.switch.queues import DropReason, Enqueued, PortQueues, QueueConfig


def test_depth_limit_drops_tail_and_counts(make_queues):
    q = make_queues(QueueConfig(depth=3))
    results = [q.offer(i, priority=0, now_us=0) for i in range(5)]
    assert [isinstance(r, Enqueued) for r in results] == [True, True, True, False, False]
    assert results[3] == DropReason.QUEUE_FULL
    assert q.drops[DropReason.QUEUE_FULL] == 2
    assert q.depth == 3


def test_a_priority_can_have_its_own_depth(make_queues):
    # as BMv2's set_queue_depth DEPTH PORT PRIO: a deep queue for small trimmed headers
    q = make_queues(QueueConfig(depth=2, priority_depths={1: 5}), priorities=2)
    data = [q.offer(i, priority=0, now_us=0) for i in range(3)]
    headers = [q.offer(i, priority=1, now_us=0) for i in range(6)]
    assert [isinstance(r, Enqueued) for r in data] == [True, True, False]
    assert [isinstance(r, Enqueued) for r in headers] == [True] * 5 + [False]
    assert q.drops[DropReason.QUEUE_FULL] == 2 and q.depth == 7


def test_qdepth_counts_only_the_packets_own_priority_queue(make_queues):
    # BMv2 >= 1.15.1: enq_qdepth / deq_qdepth are the size of the packet's priority FIFO
    q = make_queues(QueueConfig(depth=10), priorities=2)
    depths = [q.offer(i, priority=i % 2, now_us=0).enq_qdepth for i in range(5)]
    assert depths == [0, 0, 1, 1, 2]
    header = q.pop(10)
    assert header.priority == 1 and header.deq_qdepth == 1  # the data FIFO's 3 not counted
    q.charge(header, 0)
    q.charge(q.pop(10), 0)
    data = q.pop(10)
    assert data.priority == 0 and data.deq_qdepth == 2


def test_bad_priority_dropped(make_queues):
    q = make_queues(priorities=2)
    assert q.offer("x", priority=2, now_us=0) == DropReason.BAD_PRIORITY
    assert q.drops[DropReason.BAD_PRIORITY] == 1
    assert q.depth == 0


def test_strict_priority_serves_highest_value_first(make_queues):
    q = make_queues(QueueConfig(rate_pps=1000), priorities=3)
    for item, prio in [("low", 0), ("mid", 1), ("high", 2), ("low2", 0)]:
        q.offer(item, priority=prio, now_us=0)
    served = []
    now = 0
    while q.depth:
        d = q.pop(now)
        if d is None:
            now = int(q.next_ready_us())
            continue
        served.append(d.item)
        q.charge(d, 100)
    assert served == ["high", "mid", "low", "low2"]


def test_rate_limit_spaces_departures_and_sets_deq_metadata(make_queues):
    q = make_queues(QueueConfig(rate_pps=1000))  # 1 ms per packet
    for i in range(3):
        q.offer(i, priority=0, now_us=0)
    first = q.pop(0)
    assert first.deq_timedelta == 0 and first.deq_qdepth == 2
    q.charge(first, 64)
    assert q.pop(999) is None
    assert q.next_ready_us() == 1000
    second = q.pop(1500)  # a late poll still starts service at the model time
    assert second.start_us == 1000 and second.deq_timedelta == 1000 and second.deq_qdepth == 1
    q.charge(second, 64)
    assert q.next_ready_us() == 2000


def test_line_rate_charges_by_size_so_small_packets_go_faster(make_queues):
    cfg = QueueConfig(line_rate_bps=8_000_000)  # 1 byte per µs
    q = make_queues(cfg)
    q.offer("big", priority=0, now_us=0)
    q.offer("small", priority=0, now_us=0)
    big = q.pop(0)
    q.charge(big, 1500)
    assert q.next_ready_us() == 1500
    small = q.pop(1500)
    q.charge(small, 64)
    assert q.next_ready_us() is None
    assert cfg.service_time_us(64) == pytest.approx(64)


def test_service_time_is_max_of_rate_and_line_rate(make_queues):
    cfg = QueueConfig(rate_pps=10_000, line_rate_bps=8_000_000)
    assert cfg.service_time_us(64) == pytest.approx(100)  # packet rate dominates
    assert cfg.service_time_us(1500) == pytest.approx(1500)  # line rate dominates


def test_unlimited_queue_serves_immediately_and_idle_server_waits_for_arrival(make_queues):
    q = make_queues()
    assert q.pop(0) is None and q.next_ready_us() is None
    q.offer("a", priority=0, now_us=50)
    d = q.pop(60)
    assert d.item == "a" and d.enq_timestamp == 50 and d.deq_timedelta == 10 - 10
    q.charge(d, 1000)
    assert q.next_ready_us() is None


def test_clear_discards_everything(make_queues):
    q = make_queues(priorities=2)
    q.offer(1, priority=0, now_us=0)
    q.offer(2, priority=1, now_us=0)
    assert q.clear() == 2 and q.depth == 0


def test_a_fifo_keeps_its_order_through_wrapping_and_growing(make_queues):
    """The compiled FIFO is a ring that doubles when full: items that had wrapped to its
    front must still come out in arrival order after it grows, again and again."""
    q = make_queues(QueueConfig(depth=10_000))
    sent, served = 0, []
    for burst, drain in ((16, 10), (30, 25), (70, 60), (200, 150)):
        for _ in range(burst):
            q.offer(sent, priority=0, now_us=0)
            sent += 1
        for _ in range(drain):
            d = q.pop(0)
            q.charge(d, 0)
            served.append(d.item)
    while (d := q.pop(0)) is not None:
        q.charge(d, 0)
        served.append(d.item)
    assert served == list(range(sent))


def test_start_service_at_the_ready_time_is_pop(make_queues):
    """The traffic manager reads next_ready_us once and starts service at it: the same
    packet and metadata as pop at any later clock."""
    def filled() -> PortQueues:
        q = make_queues(QueueConfig(rate_pps=1000), priorities=2)
        q.offer("low", priority=0, now_us=0)
        q.offer("high", priority=1, now_us=300.5)
        q.offer("low2", priority=0, now_us=400)
        return q
    a, b = filled(), filled()
    while a.queued:
        ready = a.next_ready_us()
        assert ready == b.next_ready_us()
        popped, started = b.pop(ready + 250), a.start_service(ready)
        assert popped == started
        a.charge(started, 64)
        b.charge(popped, 64)
    assert [a.busy_until_us, a.queued, a.dequeued] == [b.busy_until_us, 0, 3]
