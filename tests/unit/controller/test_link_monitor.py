"""Probe bookkeeping and probe frames."""

from __future__ import annotations

from controller.link_monitor import LinkMonitor, LinkStatus, parse_probe, probe_frame

LINK = (("a1", 3), ("c1", 1))
OTHER = (("a1", 4), ("c2", 1))


def _round(monitor, now):
    events, probes = monitor.start_round(now)
    return events, dict(probes)


def test_probe_frame_round_trip():
    frame = probe_frame(7, 3, 99, 123456)
    assert frame[12:14] == b"\x88\xb5"
    assert len(frame) == 14 + 16
    assert parse_probe(frame) == (7, 3, 99, 123456)
    assert parse_probe(b"\x00" * 12 + b"\x08\x00" + b"\x00" * 16) is None
    assert parse_probe(frame[:20]) is None


def test_down_after_three_misses_and_up_after_two_answers():
    monitor = LinkMonitor([LINK, OTHER], interval=0.1, miss_limit=3, up_after=2)
    t = 0.0
    events, probes = _round(monitor, t)
    assert not events
    monitor.probe_answered(OTHER, probes[OTHER], t + 0.01)
    monitor.probe_answered(LINK, probes[LINK], t + 0.01)
    # LINK dies now: rounds 2, 3, 4 go unanswered
    for i in range(1, 4):
        t = i * 0.1
        events, probes = _round(monitor, t)
        assert not events
        monitor.probe_answered(OTHER, probes[OTHER], t + 0.01)
    t = 0.4
    events, probes = _round(monitor, t)
    assert [(e.link, e.status) for e in events] == [(LINK, LinkStatus.DOWN)]
    assert events[0].first_miss_at == 0.1 + 0.1  # probe 2 sent at 0.1, due one interval later
    assert monitor.down_links() == {LINK}
    # link returns: one answer is not enough, two are
    assert monitor.probe_answered(LINK, probes[LINK], t + 0.01) is None
    events, probes = _round(monitor, 0.5)
    event = monitor.probe_answered(LINK, probes[LINK], 0.51)
    assert event is not None and event.status is LinkStatus.UP
    assert monitor.down_links() == set()


def test_late_answers_keep_the_link_up():
    monitor = LinkMonitor([LINK], interval=0.1, miss_limit=3)
    sent = []
    for i in range(10):
        events, probes = _round(monitor, i * 0.1)
        assert not events
        sent.append(probes[LINK])
        if len(sent) >= 2:  # every answer arrives one round late
            monitor.probe_answered(LINK, sent[-2], i * 0.1 + 0.05)
    assert monitor.is_up(LINK)


def test_stale_or_unknown_answers_are_ignored():
    monitor = LinkMonitor([LINK], interval=0.1, miss_limit=1, up_after=1)
    _round(monitor, 0)
    assert monitor.probe_answered((("x", 1), ("y", 1)), 1, 0) is None
    assert monitor.probe_answered(LINK, 5, 0) is None  # never sent
    events, _ = _round(monitor, 0.1)
    assert events and events[0].status is LinkStatus.DOWN
