"""Entropy values (EVs) per plane, their health, and the per-packet choice among them.

An EV stands for one (unknown) path through the fabric. Each EV keeps its own RTT, ECN
share, trims and losses. An EV whose ACK came back unmarked is *recycled*: the next packet
goes on it again (as in REPS, recycled entropy packet spraying), so each path carries a share
of the window proportional to how fast it returns clean ACKs, whatever number of EVs happen
to hash onto it. Without a recycled EV at hand the choice is round-robin.

With `recycle_marked` (the simulator's datacenter senders) a marked ACK recycles its EV too
unless the marks steer it away (below). When a full fabric marks every path alike, the
clean-only rule sends the window back to the round-robin, whose shares are the hash's, not
the paths': the hot paths then filled and kept the marks coming (simulated permutation,
k=6 over 1.5 ms: the fabric fell from 0.94 to 0.80 of capacity and ev's flows averaged
86.8 %, slowest 79.7 %; recycling on such marks held 0.94, 92.5 / 86.8 %). The lab keeps
REPS's rule: there a window of a few jumbo frames over 4 paths is marked where flows meet
on one path, and recycling on marks showed no gain beyond the machine's spread (lab
permutation, ev, 10 seeds: the goals met in 6 of 10 with it, 5 of 10 without it, the
same hour); nor did a 15-to-1 incast with the lab's window (the last byte at 1.21x of
ideal instead of 1.16x, one seed).

Status:

- GOOD: used in round-robin order;
- CONGESTED: skipped for about one RTT so the load moves to the other paths, then used
  again: a hashed EV when its packet was trimmed, or when its marks (ECN echo, high `qmax`)
  stand out from its plane's other EVs; a source route when its marks stand out from its
  plane's other routes (`_steer_away`). Marks that every path shares say the fabric is
  full, which is the window's business, not the path choice's;
- FAILED: retired after `retire_after` losses in a row; not used for data, probed later;
- PROBING: a PROBE with this EV is out; a PROBE_REPLY reinstates it, silence fails it again
  with a doubled probe interval.

With source routes for a plane (the fabric's `source` spray mode), the EV stops being a hash
input: EV i of the plane is bound to route i mod n, so the round-robin order takes the n
paths in turn and every path gets the same share of each window. The EV still names the
path in the feedback, so health and penalties work per EV as before; a loss retires every
EV of its route at once and a probe answered on one reinstates them all (they share a
fate), and clean ACKs do not recycle a routed EV: recycling reorders the turns by ACK
arrival and bunches one path's packets together (simulated permutation, 8 seeds: mean
98.4 % of the link rate, slowest flow 97.2 % without it; 94.0 / 88.8 % with it). This is
MRC's own design as publicly described (SRv6 paths chosen by the NIC, the EV echoed to
name them). A hashed EV only picks a path at random, and at a window of a few packets per
path the turns it skips are what fill one path's queue while another idles
(docs/experiments.md, permutation).
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final, Protocol

from mrclab.endpoint.core.rtt import RttEstimator

# In a saturated fabric every path is marked alike. Skipping each path as it is marked
# put its turns on the others: a source route's on the next route, which at k=12
# overloaded every uplink of one pod (slowest flow 62.9 % of the link rate); a hashed
# EV's on the EVs that happened to come back clean, whose paths then filled in turn
# (k=4 over 1.5 ms: the fabric fell from 0.95 to 0.64 of its capacity and climbed back
# over a millisecond; 0.87-0.93 with marks steering only when they stand out).
PATH_OUTLIER: Final = 3.0
PATH_MARKED: Final = 0.25  # an ecn_share of about two marks in a row at the default gain


class EvStatus(Enum):
    GOOD = "good"
    CONGESTED = "congested"
    FAILED = "failed"
    PROBING = "probing"


@dataclass(slots=True, eq=False)
class EvState:
    ev: int
    plane: int
    route: int = 0  # the `route` word its packets carry; 0: the fabric hashes the EV
    status: EvStatus = EvStatus.GOOD
    rtt: RttEstimator = field(default_factory=RttEstimator)
    ecn_share: float = 0.0
    acks: int = 0
    marks: int = 0
    trims: int = 0
    losses: int = 0
    losses_in_row: int = 0
    sent: int = 0
    penalty_until: float = 0.0
    probe_at: float = 0.0
    probe_deadline: float = 0.0
    probe_backoff: float = 0.0
    retired_count: int = 0
    acked_sent: float = -1.0  # send time of the latest-sent packet on this EV that was acked
    lost_sent: float = -1.0  # send time of the latest-sent packet on this EV declared lost

    @property
    def usable(self) -> bool:
        return self.status in (EvStatus.GOOD, EvStatus.CONGESTED)


@dataclass(slots=True)
class Retirement:
    """One EV retirement, reported in the sender's stats."""

    time: float
    plane: int
    ev: int


def check_routes(routes: tuple[tuple[int, ...], ...], planes: int, evs_per_plane: int) -> None:
    """Source routes (per plane, as `EvPool` takes them) that the pool cannot carry: more
    planes than the sender has, or more routes on a plane than EVs to name them."""
    if len(routes) > planes:
        raise ValueError(f"source routes for {len(routes)} planes, the sender has {planes}")
    for plane, words in enumerate(routes):
        if len(words) > evs_per_plane:
            raise ValueError(f"plane {plane}: {len(words)} source routes but only "
                             f"{evs_per_plane} EVs to name them")


Choose = Callable[[float, EvState | None], EvState]  # the pool's choice (now, avoid)


class EvPolicy(Protocol):
    """Decisions a pool may hand to someone else (the endpoint exercise's student): the EV
    a resend goes on, and whether a loss retires its EV. (The pool calls the policies and
    plane rules below untyped, as Python would: a student's may return a truthy value for
    a bool, a tuple for a list, a set for a frozenset, and the compiled endpoint
    (mrclab.endpoint.compiled) takes them as the pure-Python one does.)"""

    def resend_ev(self, pool: EvPool, choose: Choose, now: float, avoid: EvState) -> EvState:
        """The EV for a resend whose last copy went on `avoid`; `choose(now, avoid)` is the
        pool's own choice."""

    def on_loss(self, pool: EvPool, st: EvState) -> bool:
        """Count a loss blamed on `st` (`losses`, `losses_in_row`); True to retire it."""


class PlaneRules(Protocol):
    """How the pool chooses among planes (the planes exercise's student writes these;
    `DEFAULT_PLANE_RULES` are the pool's own)."""

    def plane_order(self, next_plane: int, nplanes: int,
                    trusted: frozenset[int] | None) -> list[int]:
        """The planes to try for the next packet, first choice first; `trusted`: the
        planes to use (None: any)."""

    def plane_suspect(self, lost_sent: float, acked_sent: float) -> bool:
        """A plane whose latest packet declared lost and latest packet delivered were sent
        at these times (-1: none yet): is it suspect?"""

    def trusted_planes(self, suspect: list[bool]) -> frozenset[int] | None:
        """The planes to use, given which are suspect; None: any will do."""


def _lost_since_delivered(lost_sent: float, acked_sent: float) -> bool:
    """The pool's suspect plane: it lost a packet sent after the latest it delivered. Its
    EVs share switches, so a failed plane shows this way before each of its EVs has lost
    a packet."""
    return lost_sent > acked_sent


class _PoolPlaneRules:
    def plane_order(self, next_plane: int, nplanes: int,
                    trusted: frozenset[int] | None) -> list[int]:
        """Planes in turn from `next_plane`, the untrusted left out."""
        order = [(next_plane + i) % nplanes for i in range(nplanes)]
        return order if trusted is None else [p for p in order if p in trusted]

    def plane_suspect(self, lost_sent: float, acked_sent: float) -> bool:
        return _lost_since_delivered(lost_sent, acked_sent)

    def trusted_planes(self, suspect: list[bool]) -> frozenset[int] | None:
        ok = frozenset(p for p, bad in enumerate(suspect) if not bad)
        return ok if 0 < len(ok) < len(suspect) else None


DEFAULT_PLANE_RULES: Final[PlaneRules] = _PoolPlaneRules()


class EvPool:
    """The EVs of every plane; picks an EV per packet and tracks retire/probe/reinstate."""

    def __init__(self, planes: int, evs_per_plane: int, rng: random.Random,
                 retire_after: int = 2, ecn_gain: float = 1 / 8,
                 routes: tuple[tuple[int, ...], ...] = (),
                 policy: EvPolicy | None = None,
                 plane_rules: PlaneRules | None = None, recycle_marked: bool = False) -> None:
        """`routes`: per plane, the `route` words of its source routes (none: hashed EVs).
        `policy`: who decides resends and retirement instead of the pool's own rules;
        `plane_rules`: who orders, suspects and trusts planes (`DEFAULT_PLANE_RULES`);
        `recycle_marked`: a marked ACK that does not steer its EV away recycles it."""
        self.recycle_marked = recycle_marked
        self.policy = policy
        self.plane_rules = plane_rules or DEFAULT_PLANE_RULES
        # packets in flight per plane, kept by the sender's scoreboard (None: planes in turn)
        self.plane_load: dict[int, int] | None = None
        if planes < 1 or not 1 <= evs_per_plane <= 65535:
            raise ValueError("need at least one plane and 1..65535 EVs per plane")
        check_routes(routes, planes, evs_per_plane)
        self.retire_after = retire_after
        self.ecn_gain = ecn_gain
        self.planes: list[list[EvState]] = []
        # per plane, EV value -> its state (by int, not by a (plane, EV) tuple: every ACK
        # looks its EV up)
        self._by_ev: list[dict[int, EvState]] = []
        for plane in range(planes):
            words = routes[plane] if plane < len(routes) else ()
            # EV i takes route i mod n: EVs a multiple of n share the routes evenly (with 64
            # EVs over 9 routes the first would carry 14 % more than the others)
            count = evs_per_plane - evs_per_plane % len(words) if words else evs_per_plane
            values = rng.sample(range(1, 65536), count)
            # and the turns start at a route of the sender's own: senders that began
            # together at route 0 sent their n-th packets all through one core switch
            # (k=12: 432 flows' first windows onto 36 cores in turn, every one trimmed)
            first = rng.randrange(len(words)) if words else 0
            states = [EvState(ev, plane, words[(first + i) % len(words)] if words else 0)
                      for i, ev in enumerate(values)]
            self.planes.append(states)
            self._by_ev.append({st.ev: st for st in states})
        self._cursor = [0] * planes
        # ecn_share summed per plane (every EV) and per (plane, route) (routed EVs)
        self._share_sum = [0.0] * planes
        self._route_share: dict[tuple[int, int], float] = {}
        self._route_evs: dict[tuple[int, int], int] = {}
        for st in self.all():
            if st.route:
                key = (st.plane, st.route)
                self._route_share[key] = 0.0
                self._route_evs[key] = self._route_evs.get(key, 0) + 1
        # per plane, the send times of the latest packet delivered and declared lost
        self._plane_acked = [-1.0] * planes
        self._plane_lost = [-1.0] * planes
        # `trusted_planes` under the pool's own rules, until either list above changes: it
        # is asked on every packet, and a plane's verdict changes only with its losses
        self._trusted: Container[int] | None = None
        self._trusted_known = False
        self._next_plane = 0
        # (EV, until when it may be reused): a clean ACK recycles its EV for the next
        # packet, not for one sent after a pause; at a transfer's tail, entries from before
        # a plane failed would otherwise send the last packets into the dead plane.
        self._recycled: deque[tuple[EvState, float]] = deque(maxlen=4 * planes * evs_per_plane)
        self.retirements: list[Retirement] = []
        self.reinstatements = 0
        self.used: set[tuple[int, int]] = set()
        # FAILED or PROBING EVs, insertion-ordered (a dict, for deterministic runs).
        self._down: dict[EvState, None] = {}

    def lookup(self, plane: int, ev: int) -> EvState | None:
        return self._by_ev[plane].get(ev) if 0 <= plane < len(self._by_ev) else None

    def all(self) -> list[EvState]:
        return [st for states in self.planes for st in states]

    def choose(self, now: float, avoid: EvState | None = None) -> EvState:
        """Next EV for a packet (`avoid`: the EV a resend's last copy went on); the
        policy's choice for a resend when the pool has one."""
        if avoid is None or self.policy is None:
            return self._choose(now, avoid)
        picked: list[EvState] = []

        def pools_choice(when: float, not_this: EvState | None = None) -> EvState:
            picked.append(self._choose(when, not_this))
            return picked[-1]
        policy: Any = self.policy  # untyped: see `EvPolicy`
        chosen = policy.resend_ev(self, pools_choice, now, avoid)
        if not isinstance(chosen, EvState) or self.lookup(chosen.plane, chosen.ev) is not chosen:
            raise TypeError(f"resend_ev returned {chosen!r}, not one of the pool's EVs")
        if not picked or chosen is not picked[-1]:
            self._use(chosen)  # the pool's choice counts its use; another pick must too
        return chosen

    def _choose(self, now: float, avoid: EvState | None = None) -> EvState:
        """Next EV for a packet: a recycled one if any, else planes in turn and GOOD EVs
        round-robin within a plane; a suspect plane (`plane_suspect`) only when every
        plane is."""
        planes = self.trusted_planes()
        while self._recycled:
            st, until = self._recycled.popleft()
            if until >= now and st.usable and st is not avoid and st.penalty_until <= now \
                    and (planes is None or st.plane in planes):
                return self._use(st)
        nplanes = len(self.planes)
        start = self._next_plane
        fallback: EvState | None = None
        rules: Any = self.plane_rules  # untyped: see `EvPolicy`
        order = rules.plane_order(start, nplanes, planes)
        load = self.plane_load
        if load is not None and self.plane_rules is DEFAULT_PLANE_RULES and len(order) > 1:
            # the plane with the fewest packets in flight first: a plane whose paths are
            # congested or shrunk returns its packets later, so it gets fewer, and one window
            # over all planes no longer runs every plane at the slowest one's pace. The
            # others, in that order too, are ranked only when it has no EV to give (per
            # packet, a sort cost more than the pick).
            least = order[0]
            least_load = load.get(least, 0)
            for plane in order:
                plane_load = load.get(plane, 0)
                if plane_load < least_load:
                    least, least_load = plane, plane_load
            self._next_plane = (least + 1) % nplanes
            pick, fallback = self._choose_in_plane(least, now, avoid)
            if pick is not None:
                return self._use(pick)
            order = sorted((p for p in order if p != least), key=lambda p: load.get(p, 0))
        for plane in order:
            self._next_plane = (plane + 1) % nplanes
            pick, soonest = self._choose_in_plane(plane, now, avoid)
            if pick is not None:
                return self._use(pick)
            if soonest is not None and (fallback is None
                                        or soonest.penalty_until < fallback.penalty_until):
                fallback = soonest
        self._next_plane = start  # a whole round without a pick: the turn stays
        if fallback is not None:
            return self._use(fallback)
        # Every EV is retired: send anyway (recovery then rests on timeouts and probes).
        states = self.planes[self._next_plane]
        return self._use(states[self._cursor[self._next_plane] % len(states)])

    def _choose_in_plane(self, plane: int, now: float, avoid: EvState | None,
                         excluded: Container[EvState] = frozenset()
                         ) -> tuple[EvState | None, EvState | None]:
        """The next usable, unpenalised EV of `plane` round-robin (not `avoid`, none of
        `excluded`), or None and the soonest a penalty lets one go."""
        states = self.planes[plane]
        n = len(states)
        start = self._cursor[plane]
        soonest: EvState | None = None
        for i in range(n):
            st = states[(start + i) % n]
            if not st.usable or st is avoid or st in excluded:
                continue
            if st.penalty_until <= now:
                self._cursor[plane] = (start + i + 1) % n
                return st, None
            if soonest is None or st.penalty_until < soonest.penalty_until:
                soonest = st
        if soonest is None and avoid is not None and avoid.usable:
            soonest = avoid
        return None, soonest

    def away_from(self, now: float, silent: set[EvState]) -> EvState:
        """An EV for a tail probe: the next usable one round-robin that no silent packet is
        on, nor on the same source route; not a recycled one (those delivered before the
        silence, maybe over what has failed since). The pool's own choice when none is."""
        excluded = {mate for st in silent for mate in self._route_mates(st)}
        nplanes = len(self.planes)
        for k in range(nplanes):
            pick, _ = self._choose_in_plane((self._next_plane + k) % nplanes, now, None,
                                            excluded)
            if pick is not None:
                return self._use(pick)
        return self._choose(now)

    def _use(self, st: EvState) -> EvState:
        st.sent += 1
        self.used.add((st.plane, st.ev))
        return st

    def on_feedback(self, st: EvState, marked: bool, now: float, penalty: float,
                    trimmed: bool = False) -> None:
        """An ACK/NACK came back on this EV: it is alive; update its congestion view.
        `marked`: ECN, high `qmax` or a trim; `trimmed`: a NACK."""
        st.acks += 1
        st.losses_in_row = 0
        delta = self.ecn_gain * ((1.0 if marked else 0.0) - st.ecn_share)
        st.ecn_share += delta
        self._share_sum[st.plane] += delta
        if st.route:
            self._route_share[(st.plane, st.route)] += delta
        if marked:
            st.marks += 1
            if st.usable and self._steer_away(st, trimmed):
                st.status = EvStatus.CONGESTED
                st.penalty_until = now + penalty
                return
            if not self.recycle_marked:
                return
        elif st.status is EvStatus.CONGESTED and now >= st.penalty_until:
            st.status = EvStatus.GOOD
        if st.usable and not st.route:
            self._recycled.append((st, now + 2 * penalty))

    def _steer_away(self, st: EvState, trimmed: bool) -> bool:
        """Should a mark on `st` move the next packets off its path? At once for a trimmed
        hashed EV (its skipped turns go to EVs hashed at random, where a route's would all
        go to the next route); otherwise only when the path (a hashed EV, or a source
        route's EVs on average) is marked often (`PATH_MARKED`) and more than
        `PATH_OUTLIER` times as often as the plane's other paths."""
        if trimmed and not st.route:
            return True
        if st.route:
            key = (st.plane, st.route)
            path_sum, path_evs = self._route_share[key], self._route_evs[key]
        else:
            path_sum, path_evs = st.ecn_share, 1
        rest = len(self.planes[st.plane]) - path_evs
        others = (self._share_sum[st.plane] - path_sum) / rest if rest else 0.0
        share = path_sum / path_evs
        return share >= PATH_MARKED and share > PATH_OUTLIER * others

    def _route_mates(self, st: EvState) -> list[EvState]:
        """The EVs that share `st`'s source route (itself included); just `st` if unrouted."""
        if not st.route:
            return [st]
        return [o for o in self.planes[st.plane] if o.route == st.route]

    def delivered_since(self, st: EvState, sent_at: float) -> bool:
        """Did `st`'s path deliver a packet sent at or after `sent_at`?"""
        return any(mate.acked_sent >= sent_at for mate in self._route_mates(st))

    def on_delivered(self, st: EvState, sent_at: float) -> bool:
        """A packet sent on `st` at `sent_at` arrived. A retired EV (with its route) is put
        back when that packet was sent no earlier than the latest packet its path lost:
        a late ACK of an older packet says nothing of the path since. True when put back."""
        st.acked_sent = max(st.acked_sent, sent_at)
        acked = self._plane_acked[st.plane]
        if sent_at > acked:
            self._plane_acked[st.plane] = sent_at
            if _lost_since_delivered(self._plane_lost[st.plane], acked):
                # the plane was suspect (the pool's rule, the only one `_trusted` keeps) and
                # may not be now; a later delivery on a plane not suspect changes nothing
                self._trusted_known = False
        if st.usable:
            return False
        mates = self._route_mates(st)
        if max(m.acked_sent for m in mates) < max(m.lost_sent for m in mates):
            return False
        self.reinstate(st)
        return True

    def covers_every_path(self, states: list[EvState]) -> bool:
        """Do `states` include every path the pool still uses (a source route, or a hashed
        EV)? Losses on all of them at once have a common cause, not a path to blame."""
        lost = {(st.plane, st.route or st.ev) for st in states}
        return all((st.plane, st.route or st.ev) in lost for st in self.all() if st.usable)

    def plane_suspect(self, plane: int) -> Any:
        """Did `plane` lose a packet sent after the latest one it delivered? Its EVs share
        switches, so a failed plane shows this way before each of its EVs has lost one.
        (A bool from the pool's rules; whatever a student's rules return, as Python takes
        it: see `EvPolicy`.)"""
        rules: Any = self.plane_rules
        return rules.plane_suspect(self._plane_lost[plane], self._plane_acked[plane])

    def trusted_planes(self) -> Container[int] | None:
        """The planes not suspect; None when that is all of them or none (then any will
        do). A suspect plane gets packets again once a probe of one of its retired EVs is
        answered, or a late ACK shows its loss was spurious."""
        if len(self.planes) == 1:  # the common case, on every packet: nothing to choose
            return None
        if self._trusted_known:
            return self._trusted
        rules: Any = self.plane_rules  # a frozenset from the pool's rules (see `EvPolicy`)
        trusted = rules.trusted_planes([self.plane_suspect(p) for p in range(len(self.planes))])
        # a student's rules may keep state of their own: asked every time
        if rules is DEFAULT_PLANE_RULES:
            self._trusted, self._trusted_known = trusted, True
        return trusted

    def freshest(self, now: float, avoid: EvState | None = None) -> EvState | None:
        """Where a packet that timed out goes next: the usable EV (not `avoid`, not
        penalised) whose path delivered the latest-sent packet, on a plane that lost
        nothing sent after its latest delivery if there is one."""
        suspect = [self.plane_suspect(p) for p in range(len(self.planes))]  # once, not per EV
        best: EvState | None = None
        best_key = (False, -1.0)
        for st in self.all():
            if st.usable and st is not avoid and st.penalty_until <= now and st.acked_sent >= 0:
                key = (not suspect[st.plane], st.acked_sent)
                if best is None or key > best_key:
                    best, best_key = st, key
        return self._use(best) if best is not None else None

    def freshest_in_plane(self, plane: int, count: int) -> list[EvState]:
        """Up to `count` EVs of `plane`, latest delivery first, one per path."""
        ranked = sorted(self.planes[plane], key=lambda st: st.acked_sent, reverse=True)
        seen: set[int] = set()
        out = []
        for st in ranked:
            key = st.route or st.ev
            if key not in seen:
                seen.add(key)
                out.append(st)
                if len(out) == count:
                    break
        return out

    def note_lost(self, st: EvState, sent_at: float) -> None:
        """A packet sent on `st` at `sent_at` was declared lost (blamed or not)."""
        st.lost_sent = max(st.lost_sent, sent_at)
        self._plane_lost[st.plane] = max(self._plane_lost[st.plane], sent_at)
        self._trusted_known = False

    def on_loss(self, st: EvState, now: float, probe_delay: float) -> bool:
        """A packet sent on this EV was lost and blamed on it; True when that retires the
        EV (and the other EVs of its source route)."""
        if self.policy is not None:
            policy: Any = self.policy  # untyped: see `EvPolicy`
            retire = policy.on_loss(self, st)
        else:
            st.losses += 1
            st.losses_in_row += 1
            retire = st.losses_in_row >= self.retire_after
        if st.usable and retire:
            for mate in self._route_mates(st):
                if mate.usable:  # one probe per route: its answer reinstates them all
                    self._retire(mate, now, probe_delay if mate is st else math.inf)
            return True
        return False

    def _retire(self, st: EvState, now: float, probe_delay: float) -> None:
        st.status = EvStatus.FAILED
        st.probe_backoff = probe_delay
        st.probe_at = now + probe_delay
        st.retired_count += 1
        self._down[st] = None
        self.retirements.append(Retirement(now, st.plane, st.ev))

    def due_probes(self, now: float) -> list[EvState]:
        return [st for st in self._down if st.status is EvStatus.FAILED and st.probe_at <= now]

    def start_probe(self, st: EvState, now: float, timeout: float) -> None:
        st.status = EvStatus.PROBING
        st.probe_deadline = now + timeout

    def expire_probes(self, now: float, max_backoff: float) -> None:
        for st in self._down:
            if st.status is EvStatus.PROBING and st.probe_deadline <= now:
                st.status = EvStatus.FAILED
                st.probe_backoff = min(st.probe_backoff * 2, max_backoff)
                st.probe_at = now + st.probe_backoff

    def reinstate(self, st: EvState) -> None:
        """`st`'s path works (a probe answered, or its loss was spurious): back in service,
        with the other EVs of its source route."""
        for mate in self._route_mates(st):
            if mate.status in (EvStatus.PROBING, EvStatus.FAILED):
                mate.status = EvStatus.GOOD
                mate.losses_in_row = 0
                mate.penalty_until = 0.0
                self.reinstatements += 1
                self._down.pop(mate, None)

    def next_deadline(self) -> float | None:
        times = [st.probe_at if st.status is EvStatus.FAILED else st.probe_deadline
                 for st in self._down]
        return min(times) if times else None

    def retired_now(self) -> list[EvState]:
        return list(self._down)
