"""A host's messages to one peer share their connection: its path state (what one message
learnt of a dead path, its EVs retired, the next does not have to learn again) and its
window (their packets in flight together stay within it)."""

from __future__ import annotations

import random
from dataclasses import replace

from mrclab.endpoint.clock import EventLoop
from mrclab.endpoint.core.sender import MrcSender
from mrclab.endpoint.core.sender_config import SenderConfig
from mrclab.endpoint.host import EndpointHost, FlowSpec
from mrclab.endpoint.netio import FrameAddress, parse_frame
from mrclab.endpoint.wire import MsgType

PATHS = 4
DEAD = 1  # the fabric hashes an EV onto path ev % PATHS; this one drops everything
HOP_S = 5e-6
# host a's one plane to host b
PATH = [(0, FrameAddress.of("02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.0.2"))]


class _HashedFabric:
    """Two hosts joined by PATHS paths of equal delay; DATA hashed by its EV onto one of
    them, path DEAD dropping what it carries. Counts the DATA each EV-path carried."""

    def __init__(self, loop: EventLoop) -> None:
        self.loop = loop
        self.hosts: dict[str, EndpointHost] = {}
        self.data_on_dead = 0
        self.dead_path = True  # False: path DEAD works too

    def nic(self, name: str, peer: str):
        fabric = self

        class _Nic:
            def send(self, frame: bytes, urgent: bool = False, flow: object = None) -> None:
                parsed = parse_frame(frame)
                if fabric.dead_path and parsed.header.type == MsgType.DATA \
                        and parsed.header.ev % PATHS == DEAD:
                    fabric.data_on_dead += 1
                    return
                fabric.loop.after(HOP_S, fabric.hosts[peer].receive, 0, frame)
        return _Nic()


def _pair(share: bool) -> tuple[EventLoop, _HashedFabric, EndpointHost, list]:
    loop = EventLoop()
    fabric = _HashedFabric(loop)
    for name, peer in (("a", "b"), ("b", "a")):
        host = EndpointHost(name, loop, {0: fabric.nic(name, peer)}, random.Random(name),
                            sample_interval=1.0, share_connections=share)
        fabric.hosts[name] = host
    done: list = []
    fabric.hosts["a"].on_flow_done = done.append
    fabric.hosts["b"].on_message = lambda msg: None
    return loop, fabric, fabric.hosts["a"], done


def _send_two(share: bool) -> tuple[int, int, list]:
    """Two messages, one after the other; the DATA each sent into the dead path."""
    loop, fabric, a, done = _pair(share)
    cfg = SenderConfig(mss=1000, evs_per_plane=16, min_rto=200e-6, initial_rto=200e-6,
                       max_rto=0.01, idle_timeout=1.0, nonce=1)
    data = bytes(range(256)) * 200
    a.add_flow(FlowSpec("a", "b", len(data)), PATH, data, cfg)
    loop.run(0.5, stop=lambda: len(done) == 1)
    first = fabric.data_on_dead
    a.add_flow(FlowSpec("a", "b", len(data)), PATH, data, replace(cfg, nonce=2, seed=2))
    loop.run(1.0, stop=lambda: len(done) == 2)
    return first, fabric.data_on_dead - first, done


def test_the_next_message_avoids_the_paths_the_first_retired():
    first, second, done = _send_two(share=True)
    assert [f.sender.done for f in done] == [True, True]
    assert first > 0  # the first message met the dead path and retired its EVs
    assert second == 0  # the second never sent DATA there
    assert done[1].sender.pool is done[0].sender.pool


def test_without_sharing_each_message_learns_the_dead_path_again():
    first, second, done = _send_two(share=False)
    assert [f.sender.done for f in done] == [True, True]
    assert first > 0 and second > 0
    assert done[1].sender.pool is not done[0].sender.pool


def test_shared_in_flight_counts_return_to_zero_when_the_messages_end():
    _first, _second, done = _send_two(share=True)
    connection = done[0].sender.connection
    assert all(count == 0 for count in connection.pool.plane_load.values())
    assert connection.inflight.total == 0 and connection.turns_held == 0


def test_a_connection_of_other_planes_is_refused():
    one = MrcSender(b"x" * 10, 1, SenderConfig())
    try:
        MrcSender(b"x" * 10, 2, SenderConfig(), connection=one.connection)
    except ValueError as exc:
        assert "1 planes" in str(exc)
    else:
        raise AssertionError("a 1-plane connection taken by a 2-plane message")


def _send_at_once(share: bool, messages: int = 4) -> tuple[list, list[int], float]:
    """`messages` messages started together over a healthy fabric; the most DATA packets
    in flight at once (sent, not yet acknowledged) seen at each send, and the window."""
    loop, fabric, a, done = _pair(share)
    fabric.dead_path = False
    cfg = SenderConfig(mss=1000, evs_per_plane=16, min_rto=200e-6, initial_rto=200e-6,
                       max_rto=0.01, idle_timeout=1.0, init_cwnd=8, max_cwnd=8)
    data = bytes(range(256)) * 100
    flows = [a.add_flow(FlowSpec("a", "b", len(data)), PATH, data,
                        replace(cfg, nonce=n + 1, seed=n + 1)) for n in range(messages)]
    peaks: list[int] = []
    while len(done) < messages and loop.now < 1.0:
        loop.run(loop.now + HOP_S / 2, stop=lambda: len(done) == messages)
        peaks.append(sum(len(f.sender.board.inflight) for f in flows))
    return done, peaks, cfg.max_cwnd


def test_messages_sharing_a_connection_stay_within_one_window_together():
    done, peaks, window = _send_at_once(share=True)
    assert len(done) == 4 and all(f.sender.done for f in done)
    assert max(peaks) <= window
    assert max(peaks) == window  # and fill it: a message waiting for a slot is woken


def test_messages_of_their_own_connections_each_fill_a_window():
    done, peaks, window = _send_at_once(share=False)
    assert len(done) == 4 and all(f.sender.done for f in done)
    assert max(peaks) > 2 * window


def _window_of_the_next_message(cut_to: float, gap: float,
                                resume_at_init_cwnd: bool = True) -> float:
    """A message, then its connection's window set to `cut_to` (as an incast at its end
    would cut it), then `gap` seconds of silence, then a second message: the window its
    first DATA went out with."""
    loop, fabric, a, done = _pair(share=True)
    fabric.dead_path = False
    cfg = SenderConfig(mss=1000, evs_per_plane=16, min_rto=200e-6, initial_rto=200e-6,
                       max_rto=0.01, idle_timeout=1.0, init_cwnd=16, init_ssthresh=16,
                       max_cwnd=64, nonce=1, resume_at_init_cwnd=resume_at_init_cwnd)
    data = bytes(range(256)) * 100
    a.add_flow(FlowSpec("a", "b", len(data)), PATH, data, cfg)
    loop.run(0.5, stop=lambda: len(done) == 1)
    connection = done[0].sender.connection
    connection.cc.cwnd = cut_to
    loop.run(loop.now + gap)
    second = a.add_flow(FlowSpec("a", "b", len(data)), PATH, data, replace(cfg, nonce=2))
    while second.sender.stats.data_sent == 0 and loop.now < 1.0:
        loop.run(loop.now + HOP_S / 4)
    assert second.sender.connection is connection
    return connection.cc.cwnd


def test_a_window_cut_before_an_idle_starts_again_at_a_new_connections():
    assert _window_of_the_next_message(cut_to=3, gap=1e-3) == 16


def test_a_window_is_not_raised_without_an_rto_of_silence_or_when_not_asked():
    assert _window_of_the_next_message(cut_to=3, gap=0) == 3  # the congestion may be there
    assert _window_of_the_next_message(cut_to=3, gap=1e-3, resume_at_init_cwnd=False) == 3


def test_a_window_grown_past_a_new_connections_is_kept_after_an_idle():
    assert _window_of_the_next_message(cut_to=40, gap=1e-3) == 40
