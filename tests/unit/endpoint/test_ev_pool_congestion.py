"""EvPool choice/retire/probe and the DCTCP-like window, in isolation."""

import random

import pytest

from mrclab.endpoint.core.congestion import DctcpWindow
from mrclab.endpoint.core.ev_pool import EvPool, EvStatus


def test_pool_values_are_distinct_per_plane_and_round_robin_covers_all():
    pool = EvPool(2, 16, random.Random(1))
    assert all(len({st.ev for st in plane}) == 16 for plane in pool.planes)
    picks = [pool.choose(0.0) for _ in range(32)]
    assert {(st.plane, st.ev) for st in picks} == {(st.plane, st.ev) for st in pool.all()}
    assert [st.plane for st in picks[:4]] == [0, 1, 0, 1]  # planes take turns


def test_the_plane_with_fewest_packets_in_flight_goes_first_ties_in_turn():
    pool = EvPool(3, 8, random.Random(4))
    load = {0: 0, 1: 0, 2: 0}
    pool.plane_load = load
    assert [pool.choose(0.0).plane for _ in range(3)] == [0, 1, 2]  # even: in turn
    load.update({0: 5, 1: 2, 2: 4})  # plane 0's packets come back slowest
    assert pool.choose(0.0).plane == 1
    load[1] = 6
    assert pool.choose(0.0).plane == 2


def test_clean_ack_recycles_ev_and_trimmed_ev_is_skipped_for_a_while():
    pool = EvPool(1, 8, random.Random(2))
    a = pool.choose(0.0)
    pool.on_feedback(a, marked=False, now=0.1, penalty=0.01)
    assert pool.choose(0.1) is a  # recycled first
    pool.on_feedback(a, marked=True, now=0.15, penalty=0.01)
    assert pool.choose(0.15) is not a  # a marked ACK does not recycle (REPS, the lab's)
    pool.on_feedback(a, marked=True, now=0.2, penalty=0.05, trimmed=True)
    assert a.status is EvStatus.CONGESTED
    assert a not in [pool.choose(0.21) for _ in range(7)]
    assert a in [pool.choose(0.26) for _ in range(8)]  # penalty over


def test_a_hashed_ev_is_skipped_for_marks_only_when_they_stand_out():
    """EVs marked alike (a full fabric) keep their turns and a marked one is no longer
    recycled; one marked far more often than the rest is skipped until its penalty ends."""
    pool = EvPool(1, 8, random.Random(2))
    states = pool.planes[0]
    for t in range(4):
        for st in states:
            pool.on_feedback(st, marked=True, now=float(t), penalty=0.5)
    assert all(st.status is EvStatus.GOOD for st in states)
    assert {pool.choose(3.0) for _ in range(8)} == set(states)
    hot = states[0]
    for t in range(4, 12):
        for st in states:
            pool.on_feedback(st, marked=st is hot, now=float(t), penalty=0.5)
    assert hot.status is EvStatus.CONGESTED
    assert hot not in {pool.choose(11.0) for _ in range(7)}
    assert hot in {pool.choose(11.6) for _ in range(8)}  # the penalty ends


def test_retire_probe_backoff_and_reinstate():
    pool = EvPool(1, 4, random.Random(3), retire_after=2)
    st = pool.planes[0][0]
    assert not pool.on_loss(st, 1.0, probe_delay=0.1)
    assert pool.on_loss(st, 1.0, probe_delay=0.1) and st.status is EvStatus.FAILED
    assert all(pool.choose(1.0) is not st for _ in range(10))
    assert pool.due_probes(1.05) == [] and pool.due_probes(1.1) == [st]
    pool.start_probe(st, 1.1, timeout=0.2)
    pool.expire_probes(1.3, max_backoff=1.0)
    assert st.status is EvStatus.FAILED and st.probe_backoff == 0.2
    assert pool.next_deadline() == 1.5
    pool.reinstate(st)
    assert st.status is EvStatus.GOOD and pool.reinstatements == 1
    assert pool.next_deadline() is None


def test_all_evs_failed_still_yields_an_ev():
    pool = EvPool(1, 2, random.Random(4), retire_after=1)
    for st in pool.all():
        pool.on_loss(st, 0.0, 1.0)
    assert pool.choose(0.0) in pool.all()


ROUTES = (0x0101000000000000, 0x0102000000000000, 0x0201000000000000)


def _rotation(routes: list[int]) -> list[int]:
    """`ROUTES` in turn, from wherever `routes` starts among them."""
    first = ROUTES.index(routes[0])
    return [ROUTES[(first + i) % len(ROUTES)] for i in range(len(routes))]


def test_source_routes_are_taken_in_turn_and_not_reordered_by_recycling():
    pool = EvPool(1, 9, random.Random(5), routes=(ROUTES,))
    order = [st.route for st in pool.planes[0]]
    assert order == _rotation(order) and sorted(order) == sorted(ROUTES * 3)
    picks = [pool.choose(0.0) for _ in range(6)]
    assert [st.route for st in picks] == order[:6]
    pool.on_feedback(picks[0], marked=False, now=0.1, penalty=0.01)
    # a hashed EV would be recycled here (the REPS test above); a routed one keeps its turn
    assert [pool.choose(0.1).route for _ in range(3)] == order[:3]


def test_a_source_route_is_skipped_only_when_its_marks_stand_out():
    """Routes marked alike (a saturated fabric: skipping one only piles its turn on the
    next) keep their turns; a route marked much more than the others is skipped."""
    pool = EvPool(1, 9, random.Random(5), routes=(ROUTES,))
    states = pool.planes[0]
    order = [st.route for st in states]
    for t in range(4):
        for st in states:
            pool.on_feedback(st, marked=True, now=float(t), penalty=0.5)
    assert [pool.choose(3.0).route for _ in range(9)] == order
    hot = order[0]
    for t in range(4, 12):
        for st in states:
            pool.on_feedback(st, marked=st.route == hot, now=float(t), penalty=0.5)
    assert hot not in {pool.choose(11.0).route for _ in range(6)}
    assert {pool.choose(11.6).route for _ in range(9)} == set(ROUTES)  # the penalty ends


def test_senders_start_their_turns_at_routes_of_their_own():
    """Senders that start together must not send their n-th packets down the same route
    (at k=12, 432 first windows went through the 36 cores one core at a time)."""
    firsts = {EvPool(1, 9, random.Random(seed), routes=(ROUTES,)).choose(0.0).route
              for seed in range(20)}
    assert firsts == set(ROUTES)


def test_a_loss_retires_its_whole_source_route_and_one_probe_brings_it_back():
    pool = EvPool(1, 6, random.Random(6), retire_after=1, routes=(ROUTES[:2],))
    lost = pool.planes[0][0]
    mates = [st for st in pool.planes[0] if st.route == lost.route]
    assert pool.on_loss(lost, 1.0, probe_delay=0.1)
    assert all(st.status is EvStatus.FAILED for st in mates) and len(mates) == 3
    other = next(w for w in ROUTES[:2] if w != lost.route)
    assert {pool.choose(1.0).route for _ in range(6)} == {other}
    assert pool.due_probes(1.1) == [lost] and pool.next_deadline() == 1.1  # one per route
    pool.start_probe(lost, 1.1, timeout=0.2)
    pool.expire_probes(1.3, max_backoff=1.0)  # unanswered: the route stays down
    assert all(st.status is EvStatus.FAILED for st in mates) and pool.due_probes(1.4) == []
    assert pool.due_probes(1.5) == [lost]
    pool.reinstate(mates[-1])  # a PROBE_REPLY on any EV of the route
    assert all(st.status is EvStatus.GOOD for st in mates) and pool.next_deadline() is None


def test_a_route_that_delivered_later_packets_is_not_blamed_for_a_loss():
    pool = EvPool(1, 4, random.Random(7), routes=(ROUTES[:2],))
    a, b = (st for st in pool.planes[0] if st.route == ROUTES[0])
    b.acked_sent = 2.0
    assert pool.delivered_since(a, 1.5) and not pool.delivered_since(a, 2.5)
    hashed = EvPool(1, 4, random.Random(7))
    hashed.planes[0][1].acked_sent = 2.0
    assert not hashed.delivered_since(hashed.planes[0][0], 1.5)  # other EVs: other paths


def test_evs_share_source_routes_evenly():
    """EV i takes route i mod n: the pool keeps a multiple of n EVs, so no route carries
    more packets than the others (64 EVs over 9 routes: 7 each, not 8 for the first)."""
    nine = tuple((r << 48) | (1 << 56) for r in range(1, 10))
    pool = EvPool(2, 64, random.Random(9), routes=(nine, ROUTES))
    counts = [sum(st.route == w for st in pool.planes[0]) for w in nine]
    assert counts == [7] * 9 and len(pool.planes[1]) == 63
    assert len(EvPool(1, 64, random.Random(9), routes=(ROUTES[:2],)).planes[0]) == 64


@pytest.mark.parametrize("routes, words", [((ROUTES, ROUTES), "2 planes"),
                                           ((ROUTES * 2,), "6 source routes")])
def test_source_routes_that_do_not_fit_the_pool_are_refused(routes, words):
    with pytest.raises(ValueError, match=words):
        EvPool(1, 4, random.Random(8), routes=routes)


def test_dctcp_window_grows_then_cuts_by_marked_fraction():
    w = DctcpWindow(cwnd=10)
    for i in range(10):
        w.on_feedback(False, now=i * 1e-4, srtt=1.0)
    assert w.cwnd == 20  # slow start
    w.on_feedback(True, now=0.002, srtt=1.0)
    # First mark ends slow start at once with the prior alpha of 1: the window halves.
    assert w.cwnd == 10 and w.alpha == 1 and w.ssthresh == w.cwnd and w.draining
    # The next window drains the overshoot: marked as it may be, no second cut and no
    # measurement (its packets were sent before the cut).
    for i in range(50):
        w.on_feedback(i % 2 == 0, now=0.003 + i * 1e-4, srtt=1.0)
    cwnd = w.cwnd
    w.on_feedback(True, now=1.5, srtt=1.0)
    assert w.cwnd == cwnd and not w.draining and not w.alpha_measured
    for i in range(99):
        w.on_feedback(False, now=1.6 + i * 1e-4, srtt=1.0)
    assert cwnd < w.cwnd < 20  # additive increase only
    cwnd = w.cwnd
    # The first window after it (1 mark in 100) replaces the prior of 1 with the measured
    # fraction: a cut of 0.5 %, not of about half.
    w.on_feedback(True, now=3.0, srtt=1.0)
    assert w.alpha == pytest.approx(0.01) and w.alpha_measured
    assert w.cwnd == pytest.approx(cwnd * (1 - 0.005), rel=1e-3)
    # Later windows average: 1 of 10 marked moves alpha by gain * (0.1 - alpha).
    for i in range(9):
        w.on_feedback(i == 0, now=3.5 + i * 1e-3, srtt=1.0)
    w.on_feedback(False, now=5.0, srtt=1.0)
    assert w.alpha == pytest.approx(0.01 + (0.1 - 0.01) * w.gain) and w.gain == 1 / 4
    w.on_timeout()
    assert w.cwnd >= w.min_cwnd


def test_the_window_after_a_cut_updates_alpha_but_does_not_cut_again():
    """Its marks are for packets sent before the cut (RFC 3168: once per window)."""
    w = DctcpWindow(cwnd=40, ssthresh=40, alpha=0.5, alpha_measured=True, echo_window=True)
    w.window_began(0.0)

    def window(start: float, marked_every: int) -> float:
        for i in range(40):
            w.on_feedback(i % marked_every == 0, now=start + i * 0.02, srtt=1.0)
        w.on_feedback(False, now=start + 1.0, srtt=1.0)  # ends the window
        return w.cwnd
    first = window(0.0, 2)  # half marked: cut
    assert first < 40 and w.decreases == 1
    alpha = w.alpha
    assert window(1.0, 2) >= first and w.decreases == 1  # the echo: no cut
    assert w.alpha != alpha  # but measured
    assert window(2.0, 2) < first and w.decreases == 2  # marks again: cut


def test_marks_floor_the_window_at_one_packet_losses_at_two():
    w = DctcpWindow(cwnd=4)
    for i in range(40):  # a queue: every sample marked, one window per RTT
        w.on_feedback(True, now=i * 0.01, srtt=0.01)
    assert w.cwnd == w.min_cwnd == 1.0
    w.on_feedback(False, now=0.5, srtt=0.01, loss=True)  # a loss may be a dead path:
    w.on_feedback(False, now=0.52, srtt=0.01)  # the window ends with two packets out,
    assert w.ssthresh == w.loss_min_cwnd == 2.0 <= w.cwnd  # the next loss: seen by an ACK
    w.cwnd = 3.0
    w.on_timeout()
    assert w.cwnd == 2.0


def test_spurious_timeout_cut_is_undone_unless_a_resent_copy_confirmed_it():
    w = DctcpWindow(cwnd=12, ssthresh=12)
    w.on_timeout()
    w.on_timeout(first=False)  # a backed-off repeat before any answer: undo goes back to before the first
    assert w.cwnd == 3
    assert w.undo_timeout() and (w.cwnd, w.ssthresh) == (12, 12)
    assert not w.undo_timeout()  # once
    w.on_timeout()
    w.confirm_timeout()  # the retransmission was acked first: the loss was real
    assert not w.undo_timeout() and w.cwnd == 6


def test_trims_take_the_window_down_to_what_it_delivered_at_once():
    w = DctcpWindow(cwnd=32, ssthresh=32, alpha=0.0, alpha_measured=True)
    # one RTT: 2 packets delivered, 30 trimmed; DCTCP alone would cut by alpha / 2 <= half
    for i in range(32):
        w.on_feedback(False, now=0.001 * i, srtt=0.1, trimmed=i >= 2)
    w.on_feedback(False, now=0.1, srtt=0.1)  # ends the window
    assert w.cwnd == w.ssthresh == 3  # the 2 it delivered in the window and this ACK
    # a window of trims that delivered more than an eighth of it (a burst among many
    # senders, about to clear): only DCTCP's cut
    for delivered in (31, 6):
        w = DctcpWindow(cwnd=32, ssthresh=32, alpha=0.0, alpha_measured=True)
        for i in range(32):
            w.on_feedback(False, now=0.001 * i, srtt=0.1, trimmed=i >= delivered)
        w.on_feedback(False, now=0.1, srtt=0.1)
        assert w.cwnd > 32 * 0.75
    # ECN marks without trims never adapt quickly
    w = DctcpWindow(cwnd=16, ssthresh=16, alpha=0.0, alpha_measured=True)
    for i in range(17):
        w.on_feedback(i > 0, now=0.1 * i / 16, srtt=0.1)
    assert w.cwnd > 8


def test_quick_adapt_keeps_the_floors():
    w = DctcpWindow(cwnd=16, ssthresh=16)
    for i in range(20):  # the whole window out and trimmed
        w.on_feedback(False, now=0.003 * i, srtt=0.05, trimmed=True)
    assert w.cwnd == w.min_cwnd
    w = DctcpWindow(cwnd=16, ssthresh=16)
    w.on_feedback(False, now=0.0, srtt=0.05, loss=True)
    for i in range(20):
        w.on_feedback(False, now=0.003 * i, srtt=0.05, trimmed=True)
    assert w.cwnd == w.loss_min_cwnd


def test_marks_in_a_window_short_of_data_measure_alpha_but_cut_nothing():
    w = DctcpWindow(cwnd=100, ssthresh=100, alpha=0.5, alpha_measured=True)
    for i in range(6):  # 6 packets out of 100, every one marked
        w.on_feedback(True, now=0.01 * i, srtt=0.05)
    w.on_feedback(True, now=0.05, srtt=0.05)
    assert w.cwnd == 100 and w.alpha > 0.5 and w.decreases == 0
    w = DctcpWindow(cwnd=100, ssthresh=100, alpha=0.5, alpha_measured=True)
    for i in range(100):  # the window out, every packet marked
        w.on_feedback(True, now=0.0005 * i, srtt=0.05)
    w.on_feedback(True, now=0.05, srtt=0.05)
    assert w.cwnd < 80 and w.decreases == 1


def test_a_window_short_of_data_is_not_taken_down_to_what_it_delivered():
    # a message's tail: 6 packets out of a window of 100, 4 of them trimmed
    w = DctcpWindow(cwnd=100, ssthresh=100, alpha=0.0, alpha_measured=True)
    for i in range(6):
        w.on_feedback(False, now=0.01 * i, srtt=0.05, trimmed=i < 4)
    w.on_feedback(False, now=0.05, srtt=0.05)  # ends the window
    assert w.cwnd > 90  # no cut, not down to the 3 packets it delivered
    # the same trims with the window out: the quick adapt
    w = DctcpWindow(cwnd=100, ssthresh=100, alpha=0.0, alpha_measured=True)
    for i in range(100):
        w.on_feedback(False, now=0.0004 * i, srtt=0.05, trimmed=i >= 3)
    w.on_feedback(False, now=0.05, srtt=0.05)
    assert w.cwnd == 4


def test_a_late_ack_of_an_older_packet_does_not_bring_back_an_ev_that_lost_a_newer_one():
    pool = EvPool(2, 4, random.Random(9), retire_after=1)
    st = pool.planes[1][0]
    pool.note_lost(st, 1.0)  # sent at 1.0, lost: the path died after 0.9
    assert pool.on_loss(st, 1.2, probe_delay=0.1) and st.status is EvStatus.FAILED
    assert not pool.on_delivered(st, 0.9)  # an ACK of a packet sent before the loss
    assert st.status is EvStatus.FAILED and st.acked_sent == 0.9
    assert pool.on_delivered(st, 1.0)  # the lost packet itself turns up: it was only late
    assert st.status is EvStatus.GOOD


def test_a_recycled_ev_is_for_the_next_packet_not_one_after_a_pause():
    pool = EvPool(2, 8, random.Random(10))
    a = pool.planes[1][3]
    pool.on_feedback(a, marked=False, now=1.0, penalty=0.01)
    assert pool.choose(1.5) is not a  # stale: round-robin instead
    pool.on_feedback(a, marked=False, now=2.0, penalty=0.01)
    assert pool.choose(2.01) is a


def test_a_plane_that_lost_what_it_sent_after_its_last_delivery_is_avoided():
    pool = EvPool(2, 8, random.Random(11))
    for st in pool.all():
        pool.on_delivered(st, 1.0)
    dead = pool.planes[1][0]
    pool.note_lost(dead, 1.1)
    assert pool.plane_suspect(1) and pool.trusted_planes() == frozenset({0})
    assert {pool.choose(1.3).plane for _ in range(16)} == {0}
    pool.on_delivered(pool.planes[1][5], 1.2)  # plane 1 delivered a packet sent later
    assert pool.trusted_planes() is None
    assert {pool.choose(1.3).plane for _ in range(16)} == {0, 1}
    pool.note_lost(pool.planes[0][0], 1.3)
    pool.note_lost(pool.planes[1][0], 1.3)
    assert pool.trusted_planes() is None  # every plane suspect: any will do


def test_a_timed_out_packet_goes_where_the_latest_packet_got_through():
    pool = EvPool(2, 4, random.Random(12))
    for i, st in enumerate(pool.all()):
        pool.on_delivered(st, 1.0 + i / 100)
    late_plane_1 = pool.planes[1][-1]  # delivered the latest-sent packet ...
    pool.note_lost(pool.planes[1][0], 1.5)  # ... but its plane lost one sent after it
    assert pool.freshest(2.0) is pool.planes[0][-1]
    assert pool.freshest(2.0, avoid=pool.planes[0][-1]) is pool.planes[0][-2]
    assert late_plane_1.usable


def test_losses_on_every_path_in_use_have_a_common_cause():
    pool = EvPool(2, 2, random.Random(13))
    assert pool.covers_every_path(pool.all())
    assert not pool.covers_every_path(pool.planes[1])  # one plane's: that plane's fault
    routed = EvPool(1, 4, random.Random(14), routes=(ROUTES[:2],))
    one_each = [routed.planes[0][0], routed.planes[0][1]]
    assert routed.covers_every_path(one_each)
    assert not routed.covers_every_path(one_each[:1])


def test_a_first_window_of_a_bdp_measures_alpha_over_a_whole_window():
    # no slow start (the simulator's datacenter senders): the first window, from the first
    # sample on, measures alpha. It used to start at 0 and end at the first sample, so one
    # ACK set alpha to 0 or 1 (here 0), and the measured 25 % then came in at the gain.
    w = DctcpWindow(cwnd=40, ssthresh=40, gain=1 / 8)
    srtt = 15e-6
    for i in range(40):
        w.on_feedback(i % 4 == 0, now=20e-6 + i * srtt / 40, srtt=srtt)
    w.on_feedback(False, now=20e-6 + srtt, srtt=srtt)
    assert w.alpha_measured and w.alpha == pytest.approx(10 / 41)
    assert w.cwnd == pytest.approx(40 * (1 - 5 / 41), rel=0.02) and not w.draining


def test_the_lab_s_window_still_starts_in_slow_start_with_gain_one_quarter():
    w = DctcpWindow(cwnd=16)
    w.on_feedback(False, now=0.2, srtt=0.15)
    assert (w.cwnd, w.ssthresh, w.gain, w.alpha) == (17, float("inf"), 1 / 4, 1)


def test_with_recycle_marked_an_ordinary_mark_recycles_its_ev_a_standing_out_one_does_not():
    """The simulator's datacenter senders: a full fabric marks every path, and the marked
    EV keeps its path's share; one marked far more than the rest is still skipped."""
    pool = EvPool(1, 8, random.Random(2), recycle_marked=True)
    a = pool.choose(0.0)
    pool.on_feedback(a, marked=True, now=0.1, penalty=0.01)
    assert pool.choose(0.1) is a
    for t in range(1, 9):
        for st in pool.planes[0]:
            pool.on_feedback(st, marked=st is a, now=float(t), penalty=0.5)
    assert a.status is EvStatus.CONGESTED
    assert a not in {pool.choose(8.0) for _ in range(7)}
