"""Probe bookkeeping and probe frames."""

from __future__ import annotations

from mrclab.controller.next_hops import LinkId
from mrclab.controller.probe_liveness import LinkStatus, ProbeLiveness, parse_probe, probe_frame

LINK = (("a1", 3), ("c1", 1))
OTHER = (("a1", 4), ("c2", 1))
C1_OTHER = (("a3", 3), ("c1", 2))  # c1's other link: evidence that c1 is alive


def _round(monitor, now):
    events, probes = monitor.start_round(now)
    return events, dict(probes)


def test_probe_frame_round_trip():
    frame = probe_frame(7, {3: 99}, 123456)
    assert frame[12:14] == b"\x88\xb5"
    assert len(frame) == 14 + 10 + 6
    assert parse_probe(frame) == (7, 123456, {3: 99})
    assert parse_probe(b"\x00" * 12 + b"\x08\x00" + b"\x00" * 16) is None
    assert parse_probe(frame[:20]) is None


def test_one_probe_frame_carries_each_ports_number():
    """A frame for a switch's probe group numbers each port's probe by its own link (a
    link that went down restarts its count), and a frame cut short is no probe."""
    seqs = {1: 42, 3: 42, 4: 7, 300: 0xFFFFFFFF}
    frame = probe_frame(0x01020304, seqs, (1 << 32) + 5)
    assert len(frame) == 14 + 10 + 6 * len(seqs)
    assert parse_probe(frame) == (0x01020304, 5, seqs)
    assert parse_probe(frame[:-1]) is None
    assert parse_probe(frame + b"\x00" * 20) == (0x01020304, 5, seqs)  # Ethernet padding


def test_down_after_three_misses_and_up_after_two_answers():
    monitor = ProbeLiveness([LINK, OTHER, C1_OTHER], interval=0.1, miss_limit=3, up_after=2)
    t = 0.0
    events, probes = _round(monitor, t)
    assert not events
    for link in (OTHER, C1_OTHER, LINK):
        monitor.probe_answered(link, probes[link], t + 0.01)
    # LINK dies now: rounds 2, 3, 4 go unanswered
    for i in range(1, 4):
        t = i * 0.1
        events, probes = _round(monitor, t)
        assert not events
        monitor.probe_answered(OTHER, probes[OTHER], t + 0.01)
        monitor.probe_answered(C1_OTHER, probes[C1_OTHER], t + 0.01)
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
    monitor = ProbeLiveness([LINK], interval=0.1, miss_limit=3)
    sent = []
    for i in range(10):
        events, probes = _round(monitor, i * 0.1)
        assert not events
        sent.append(probes[LINK])
        if len(sent) >= 2:  # every answer arrives one round late
            monitor.probe_answered(LINK, sent[-2], i * 0.1 + 0.05)
    assert monitor.is_up(LINK)


def test_stale_or_unknown_answers_are_ignored():
    monitor = ProbeLiveness([LINK], interval=0.1, miss_limit=1, up_after=1, hold_limit=0.1)
    _round(monitor, 0)
    assert monitor.probe_answered((("x", 1), ("y", 1)), 1, 0) is None
    assert monitor.probe_answered(LINK, 5, 0) is None  # never sent
    events, _ = _round(monitor, 0.1)
    assert events and events[0].status is LinkStatus.DOWN


def _answer_all_but(monitor, probes, silent, t):
    for link, seq in probes.items():
        if link not in silent:
            monitor.probe_answered(link, seq, t)


def test_a_stalled_switch_holds_the_verdict_on_its_links():
    """a1 stops answering on both its links for 0.5 s (its process did not run) while c1
    and c2 keep answering on their other links: no link is declared down, and both answer
    again once a1 runs."""
    c2_other = (("a3", 4), ("c2", 2))
    links = [LINK, OTHER, C1_OTHER, c2_other]
    monitor = ProbeLiveness(links, interval=0.05, miss_limit=3, hold_limit=1.0)
    events, probes = _round(monitor, 0.0)
    _answer_all_but(monitor, probes, set(), 0.001)
    stalled = []
    for i in range(1, 11):
        events, probes = _round(monitor, i * 0.05)
        assert not events
        stalled.append((probes[LINK], probes[OTHER]))
        _answer_all_but(monitor, probes, {LINK, OTHER}, i * 0.05 + 0.001)
    assert monitor.held_verdicts == 2
    # a1 runs again: its late answers arrive, both links stay up
    for seq_link, seq_other in stalled[-3:]:
        monitor.probe_answered(LINK, seq_link, 0.56)
        monitor.probe_answered(OTHER, seq_other, 0.56)
    events, _ = _round(monitor, 0.6)
    assert not events and monitor.down_links() == set()


def test_a_stall_longer_than_the_hold_limit_is_a_failure():
    monitor = ProbeLiveness([LINK, OTHER], interval=0.05, miss_limit=3, hold_limit=0.4)
    events, probes = _round(monitor, 0.0)
    _answer_all_but(monitor, probes, set(), 0.001)
    downs = []
    for i in range(1, 12):
        events, _ = _round(monitor, i * 0.05)
        downs += [(e.link, round(e.detected_at, 2)) for e in events]
    # first unanswered probe sent at 0.05: the silence reaches 0.4 s at 0.45
    assert sorted(downs) == [(LINK, 0.45), (OTHER, 0.45)]


def test_a_failed_link_is_declared_without_waiting_when_its_ends_answer_elsewhere():
    c2_other = (("a3", 4), ("c2", 2))
    monitor = ProbeLiveness([LINK, OTHER, C1_OTHER, c2_other], interval=0.05, miss_limit=3)
    events, probes = _round(monitor, 0.0)
    _answer_all_but(monitor, probes, set(), 0.001)
    for i in range(1, 5):
        events, probes = _round(monitor, i * 0.05)
        if events:
            break
        _answer_all_but(monitor, probes, {LINK}, i * 0.05 + 0.001)
    assert [(e.link, e.status) for e in events] == [(LINK, LinkStatus.DOWN)]
    assert i == 4 and monitor.held_verdicts == 0


def test_slow_answers_stretch_the_silence_a_failure_needs():
    """The link's answers took 0.3 s a moment ago (a port's input backlog): silent for 0.2 s,
    its ends answering elsewhere, it is not yet down; silent past twice the slow answer, it
    is. The other links' fast answers do not shorten its wait."""
    c2_other = (("a3", 4), ("c2", 2))
    monitor = ProbeLiveness([LINK, OTHER, C1_OTHER, c2_other], interval=0.05, miss_limit=3)
    events, probes = _round(monitor, 0.0)
    _answer_all_but(monitor, probes, set(), 0.3)  # one slow round
    assert abs(monitor.slow_answer(LINK, 0.3) - 0.3) < 1e-9
    t, downs = 0.3, []
    while not downs and t < 2:
        t = round(t + 0.05, 2)
        events, probes = _round(monitor, t)
        downs = [e.link for e in events]
        _answer_all_but(monitor, probes, {LINK}, t + 0.001)
    assert downs == [LINK]
    # LINK's first unanswered probe went out at 0.35; 2 x 0.3 s (fading, half-life 1 s)
    assert 0.75 <= t <= 0.9, t


def test_a_slow_link_does_not_slow_the_verdict_on_another():
    c2_other = (("a3", 4), ("c2", 2))
    monitor = ProbeLiveness([LINK, OTHER, C1_OTHER, c2_other], interval=0.05, miss_limit=3)
    events, probes = _round(monitor, 0.0)
    monitor.probe_answered(OTHER, probes[OTHER], 0.3)  # OTHER was slow
    _answer_all_but(monitor, probes, {OTHER}, 0.001)
    t, downs = 0.0, []
    while not downs:
        t = round(t + 0.05, 2)
        events, probes = _round(monitor, t)
        downs = [e.link for e in events]
        _answer_all_but(monitor, probes, {LINK}, t + 0.001)
    assert downs == [LINK] and t == 0.2


def test_a_lost_switch_needs_no_proof():
    """c1's stream broke (process killed): c1's links go down once the misses are counted,
    though c1 shows no life on any other link."""
    monitor = ProbeLiveness([LINK, C1_OTHER, OTHER], interval=0.05, miss_limit=3)
    events, probes = _round(monitor, 0.0)
    _answer_all_but(monitor, probes, set(), 0.001)
    monitor.switch_lost("c1")
    downs = {}
    for i in range(1, 6):
        events, probes = _round(monitor, i * 0.05)
        downs.update({e.link: round(e.detected_at, 2) for e in events})
        _answer_all_but(monitor, probes, {LINK, C1_OTHER}, i * 0.05 + 0.001)
    assert downs == {LINK: 0.2, C1_OTHER: 0.2}
    assert monitor.held_verdicts == 0


def test_evidence_must_come_from_the_round_of_the_last_missed_probe():
    """c1 answers a3's probes late (rounds 2 and 3 only come in after round 4 started):
    an answer from round 1 is not enough to blame a1-c1, which is silent since round 1.
    Once c1 has answered round 4 on a3's link, a1-c1 is down."""
    monitor = ProbeLiveness([LINK, OTHER, C1_OTHER], interval=0.05, miss_limit=3)
    events, probes = _round(monitor, 0.0)
    _answer_all_but(monitor, probes, set(), 0.001)
    late = []
    for i in range(1, 4):
        events, probes = _round(monitor, i * 0.05)
        assert not events
        monitor.probe_answered(OTHER, probes[OTHER], i * 0.05 + 0.001)
        if i == 1:
            monitor.probe_answered(C1_OTHER, probes[C1_OTHER], i * 0.05 + 0.001)
        else:
            late.append(probes[C1_OTHER])
    events, probes = _round(monitor, 0.2)
    assert not events and monitor.held_verdicts == 1
    for seq in [*late, probes[C1_OTHER]]:
        monitor.probe_answered(C1_OTHER, seq, 0.21)
    monitor.probe_answered(OTHER, probes[OTHER], 0.21)
    events, _ = _round(monitor, 0.25)
    assert [(e.link, e.status) for e in events] == [(LINK, LinkStatus.DOWN)]


def test_answers_that_come_a_second_late_do_not_make_the_link_flap():
    """e1 (receiver only) falls behind: its answers come later and later, then 1.2 s late
    round after round (BMv2 with a full input queue). Its links stay up, where a fixed 1 s
    hold would declare them down and up again every few rounds."""
    e1_links = [(("a1", 1), ("e1", 3)), (("a2", 1), ("e1", 4))]
    monitor = ProbeLiveness(e1_links, interval=0.05, miss_limit=3, hold_limit=1.0)
    pending: list[tuple[float, LinkId, int]] = []  # (arrival, link, seq)
    for i in range(160):  # 8 s
        t = round(i * 0.05, 2)
        for arrival, link, seq in [p for p in pending if p[0] <= t]:
            monitor.probe_answered(link, seq, arrival)
        pending = [p for p in pending if p[0] > t]
        events, probes = _round(monitor, t)
        assert not events, (t, events)
        delay = min(1.2, 0.02 + 0.025 * i)  # the backlog grows, then stays
        pending += [(t + delay, link, seq) for link, seq in probes.items()]
    assert monitor.down_links() == set()
