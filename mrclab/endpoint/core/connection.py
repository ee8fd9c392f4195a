"""What the messages of one connection share: the state of its paths, its congestion window
and its estimates of the path's delay.

An RDMA connection (a queue pair) carries many messages, and its congestion control is the
connection's, not a message's: NCCL keeps one per peer and sends a collective's slices down
it one after another, several in flight at once. `MrcSender` sends one message; senders
made with the same `Connection` draw on one window (their packets in flight and their
held resends count against it together), one RTT estimator and reordering window, one
plane share and one `EvPool`. Given a connection of its own, a sender behaves as a sender
of one message always has.

Measured why: a collective's rank on 8 planes of k=8 had 8 slices of 512 KiB in flight to
its peer, each with a window of a bandwidth-delay product, so 4 MiB against a BDP of about
1.5 MB; the queues trimmed 3.4 % of the packets (143,737 resends, 17 timeouts in one
halving-doubling of 64 MiB) and the collective reached 65.9 % of the ideal busbw.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mrclab.endpoint.core.congestion import DctcpWindow, PlaneShare, Window
from mrclab.endpoint.core.ev_pool import EvPolicy, EvPool, PlaneRules
from mrclab.endpoint.core.recovery import ReorderWindow
from mrclab.endpoint.core.rtt import QueueExplainedDelay, RttEstimator, RttQuantile
from mrclab.endpoint.core.sack import InFlight
from mrclab.endpoint.core.sender_config import SenderConfig


class Connection:
    """The state the messages of one connection share (see the module's docstring)."""

    def __init__(self, planes: int, cfg: SenderConfig, rng: random.Random,
                 ev_policy: EvPolicy | None = None,
                 window_class: Callable[..., Window] = DctcpWindow,
                 plane_rules: PlaneRules | None = None) -> None:
        """`cfg`: the first message's figures, which size the window and the pool; `rng`:
        the pool's EV choices. `ev_policy`, `window_class`, `plane_rules`: `MrcSender`'s."""
        self.planes = planes
        self.pool = EvPool(planes, cfg.evs_per_plane, rng, cfg.retire_after,
                           routes=cfg.routes, policy=ev_policy, plane_rules=plane_rules,
                           recycle_marked=cfg.recycle_marked)
        self.inflight = InFlight()
        self.pool.plane_load = self.inflight.by_plane
        self.cc: Window = window_class(cwnd=cfg.init_cwnd, min_cwnd=cfg.min_cwnd,
                                       max_cwnd=cfg.max_cwnd, **cfg.window_settings())
        self.init_cwnd, self.resume_at_init_cwnd = cfg.init_cwnd, cfg.resume_at_init_cwnd
        self.last_sent: float | None = None  # when its latest DATA left (None: none yet)
        self.rtt = RttEstimator()
        self.rtt_hi = RttQuantile()
        self.queue_delay = QueueExplainedDelay()
        self.reorder = ReorderWindow()
        self.plane_share = PlaneShare(planes)
        self.turns_held = 0  # trimmed packets of its messages waiting for their turn

    def resume(self, now: float, rto: float) -> bool:
        """A message is about to send its first DATA. With `resume_at_init_cwnd`, after an
        RTO with nothing sent and nothing in flight, a window below a new connection's is
        raised to it (for the planes in use): it was cut for congestion that has drained
        since (the incast of a collective's last step), and a new connection would start
        with more. A larger one, grown into the path's queues, is kept. True when raised.
        (Measured: mrclab/endpoint/README.md, "Why the window is so".)"""
        last = self.last_sent
        if (not self.resume_at_init_cwnd or last is None or now - last < rto
                or self.inflight.total or self.turns_held):
            return False
        share = self.plane_share
        fresh = self.init_cwnd * share.in_use / share.planes
        if self.cc.cwnd >= fresh:
            return False
        self.cc.cwnd = fresh
        return True

    def slots_used(self) -> int:
        """Window slots taken: packets in flight and trimmed ones held for their turn."""
        return self.inflight.total + self.turns_held

    def window(self) -> int:
        """Packets allowed in flight."""
        return max(1, int(self.cc.cwnd))
