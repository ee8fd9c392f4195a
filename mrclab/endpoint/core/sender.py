"""Sans-I/O MRC sender for one message (on a connection whose window, estimates and path
state it may share with other messages: `connection.Connection`).

Drive it with ``poll(now)`` (returns packets to send, runs timers), ``on_packet(plane, hdr,
now)`` for every MRC packet received, and ``next_deadline()`` to know when to poll again.

Connection setup: the sender first sends an *open* PROBE (``conn == 0``) carrying a random
32-bit nonce in `reserved`, the message length in `offset` and its payload size per packet in
`length`; it repeats it with exponential backoff on other EVs until a PROBE_REPLY echoes the
nonce. The receiver chooses `conn` and answers a repeated open with the same `conn`, so setup
is idempotent. Only then does DATA flow. The LAST DATA packet carries the message CRC32 in
`reserved`.

A sender made with `hold` opens its connection at once but sends no DATA until `release`: a
connection set up ahead of its data, as NCCL connects a channel's peers before the first
collective, so that a message whose bytes are ready only later (the next slice of a ring,
once its predecessor arrives) pays no round trip to open. While it holds, the silence of the
receiver is expected: the idle timeout runs from the release.

Recovery:
- NACK (the packet was trimmed): the PSN is resent first in line, on another EV: at once,
  or at the one-packet window srtt after the trimmed copy left; or, when the NACK gives a
  turn (`reserved`, ns: `receiver.ResendPacer`), at that turn, whatever the window, its
  window slot held until then. It counts as a congestion
  mark, never as a loss or a timeout.
- Loss (RACK-like): a PSN is lost when a packet sent after it was acked and it is older than
  `recovery.expected_rtt` (smoothed RTTs, the recent 99th percentile) plus an adaptive
  reordering window; or at the RTO (at least the recent peak RTT), counted from the latest
  of its send, the last ACK with progress and the latest resend turn a NACK gave; a tail
  loss probe before the RTO (`loss_detection.LossDetector` times all three). Spurious
  losses (Eifel `ts` echo, RETX-flagged duplicate ACK) widen the window and undo the
  retirement they caused.
- Retirement: a lost PSN is resent on another EV. Its EV is blamed only when nothing sent
  later on it was acked; `retire_after` blamed losses in a row (default 1) retire it, then
  it is probed.
- Reinstatement: a retired EV comes back when a probe on it is answered, or when a packet
  sent on its path no earlier than the latest one it lost is acknowledged (a late ACK of
  an older packet says nothing of the path since it failed).
- The sender fails (``failed`` set, ``error`` says why) when it hears nothing from the
  receiver for `idle_timeout` seconds and then none of the last probes it sends on every
  plane (on the EVs that delivered last) is answered within one RTO.
"""

from __future__ import annotations

import heapq
import logging
import math
import random
import zlib
from array import array
from collections.abc import Callable

from mrclab.endpoint.core.congestion import DctcpWindow, Window, mypyc_attr
from mrclab.endpoint.core.connection import Connection
from mrclab.endpoint.core.ev_pool import EvPolicy, EvState, PlaneRules
from mrclab.endpoint.core.loss_detection import LossDetector
from mrclab.endpoint.core.packets import Outgoing, echoed_send_time, ts_age, ts_grid, ts_us
from mrclab.endpoint.core.recovery import LossLedger, LostRecord
from mrclab.endpoint.core.sack import SendScoreboard, Transmission
from mrclab.endpoint.core.sender_config import SenderConfig, SenderStats
from mrclab.endpoint.wire import ECN_ECHO, LAST, RETX, MrcHeader, MsgType, sacked_psns

log = logging.getLogger(__name__)

MAX_MESSAGE = 0xFFFFFFFF  # `offset` is 32 bits
LAST_CALL_EVS = 4  # paths per plane probed before giving up


@mypyc_attr(allow_interpreted_subclasses=True)
class MrcSender:
    """Sends one message reliably over all EVs of all planes."""

    def __init__(self, data: bytes | bytearray | memoryview, planes: int = 1,
                 config: SenderConfig | None = None, now: float = 0.0,
                 ev_policy: EvPolicy | None = None,
                 window_class: Callable[..., Window] = DctcpWindow,
                 plane_rules: PlaneRules | None = None,
                 connection: Connection | None = None, hold: bool = False) -> None:
        """`hold`: open now, send DATA only after `release` (see the module's docstring).
        `connection`: the connection of earlier messages to the same receiver over the
        same planes, whose window, estimates and path state this message shares
        (`connection.Connection`: an EV retired by one message is not tried by the next,
        and their packets in flight count against one window); None: a connection of its
        own, made with `ev_policy` (who picks resend EVs and retires EVs instead of the
        pool's rules), `window_class` (makes the congestion window, `DctcpWindow`'s
        interface) and `plane_rules` (the pool's choice among planes,
        `ev_pool.PlaneRules`); the congestion and planes exercises pass the student's."""
        self.cfg = cfg = config or SenderConfig()
        if len(data) > MAX_MESSAGE:
            raise ValueError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE}")
        if not 1 <= cfg.mss <= 0xFFFF:
            raise ValueError(f"mss {cfg.mss} out of range")
        self.data = memoryview(data)
        self.length = len(data)
        self.crc = zlib.crc32(self.data)
        self.npkts = max(1, math.ceil(self.length / cfg.mss))
        rng = random.Random(cfg.seed)
        if connection is None:
            connection = Connection(planes, cfg, rng, ev_policy, window_class, plane_rules)
        elif connection.planes != planes:
            raise ValueError(f"a connection of {connection.planes} planes for a message "
                             f"over {planes}")
        self.connection = connection
        self.pool = connection.pool
        self.board = SendScoreboard(self.npkts, connection.inflight)
        self.cc: Window = connection.cc
        self.rtt = connection.rtt
        self.rtt_hi = connection.rtt_hi
        self.queue_delay = connection.queue_delay
        # queue_delay goes only to a window told to use it: a window class may not take
        # it (the congestion exercise's)
        self._window_takes_delay = cfg.delay_target is not None or cfg.fast_delay is not None
        self.reorder = connection.reorder
        self.plane_share = connection.plane_share
        self.stats = SenderStats()
        self.nonce = (cfg.nonce if cfg.nonce is not None else rng.getrandbits(32)) or 1
        self.conn = 0
        self.opening = True
        self.holding = hold
        self.done = False
        self.failed = False
        self.error: str | None = None
        self.start_time = now
        self.open_time: float | None = None
        self.finish_time: float | None = None
        self._last_heard = now
        self._open_at = now
        self._open_backoff = cfg.initial_rto
        self.loss = LossDetector(cfg, self.rtt, self.rtt_hi, self.reorder, now)
        self._lost_since: dict[int, float] = {}  # PSN -> first send time of a lost packet
        self._ledger = LossLedger()  # inferred losses, until shown real or spurious
        self._first_sent = array("d", [-1.0]) * self.npkts  # compact: messages can be big
        self._avoid: dict[int, EvState] = {}
        self._timed_out: set[int] = set()  # PSNs to resend on the freshest path
        # (silence began, give up at): the last call before giving up, see `_last_call`
        self._give_up: tuple[float, float] | None = None
        self._probe_seq = 0
        self._paced_until = 0.0  # no DATA before this (a trim at the one-packet window)
        self._turns: list[tuple[float, int]] = []  # (turn, PSN): trimmed, resent at its turn
        self._resumed = False  # it asked its connection to `resume` before its first DATA

    # ----------------------------------------------------------------- timers and output
    def release(self, now: float) -> None:
        """The message's bytes are ready: DATA may flow (once the connection is open). The
        message's time and the receiver's silence count from now."""
        if self.holding:
            self.holding = False
            self.start_time = self._last_heard = now

    def poll(self, now: float) -> list[Outgoing]:
        """Run due timers and return the packets the window allows now."""
        out: list[Outgoing] = []
        if self.done or self.failed:
            return out
        if not self.holding and now - self._last_heard >= self.cfg.idle_timeout:
            if not self.opening and (self._give_up is None
                                     or self._give_up[0] != self._last_heard):
                return self._last_call(now)
            if self.opening or (self._give_up is not None and now >= self._give_up[1]):
                self._fail(f"no answer from the receiver for {self.cfg.idle_timeout:g} s, "
                           f"nor to a last probe on every plane ({len(self.pool.planes)})")
                return out
        if self.opening or self.holding:  # DATA waits for the open's answer and the release
            if self.opening and now >= self._open_at:
                out.append(self._open_probe(now))
            return out
        self._detect_losses(now)
        if (tail := self._tail_probe(now)) is not None:
            out.append(tail)
        self._fit_window_to_planes(now)
        self.pool.expire_probes(now, self.cfg.max_probe_backoff)
        for st in self.pool.due_probes(now):
            out.append(self._probe(st, now))
        while self._turns and self._turns[0][0] <= now:
            # the receiver's turn: the resend goes now, whatever the window (NDP's pull)
            psn = heapq.heappop(self._turns)[1]
            self.connection.turns_held -= 1
            if self.board.release(psn):
                out.append(self._data(psn, True, now))
        connection = self.connection
        if not self._resumed:
            self._resumed = True
            connection.resume(now, self.loss.rto())
        window = connection.window()
        while connection.slots_used() < window and now >= self._paced_until:
            nxt = self.board.next_psn()
            if nxt is None:
                break
            out.append(self._data(nxt[0], nxt[1], now))
        return out

    def _fit_window_to_planes(self, now: float) -> None:
        """Set aside the window's share of planes left out, and give it back as they
        return (`congestion.PlaneShare`); off on the lab's fabrics
        (`SenderConfig.window_follows_planes`), where a plane whose packets wait for a
        CPU looks failed now and then: halving the window there slowed flows that a slow
        plane then held up at their tail."""
        total = len(self.pool.planes)
        if not self.cfg.window_follows_planes or total == 1:
            return  # (one plane is never left out: nothing to do on every packet)
        if self.plane_share.refit(self.cc, self.pool.trusted_planes(), self.rtt.srtt, now):
            self.stats.window_plane_refits += 1

    def wants_window(self) -> bool:
        """It has packets to send and its connection's window has room for them: another
        message of the connection freed a slot (`poll` would send now, pacing allowing)."""
        return (not (self.done or self.failed or self.opening or self.holding)
                and self.board.pending
                and self.connection.slots_used() < self.connection.window())

    def next_deadline(self) -> float | None:
        """When `poll` must run again even if no packet arrives."""
        if self.done or self.failed:
            return None
        if self.holding:
            return self._open_at if self.opening else None
        times = [self._last_heard + self.cfg.idle_timeout]
        if self._give_up is not None and self._give_up[0] == self._last_heard:
            times = [self._give_up[1]]
        if self.opening:
            times.append(self._open_at)
        else:
            times.append(self.loss.next_check)
            if self.board.inflight:
                times += self.loss.deadlines(self._last_heard, self._oldest_inflight())
            if self.board.pending and self.connection.slots_used() < self.connection.window():
                times.append(self._paced_until)  # only pacing holds the next packet back
            if self._turns:
                times.append(self._turns[0][0])
            probe = self.pool.next_deadline()
            if probe is not None:
                times.append(probe)
        return min(times)

    def _oldest_inflight(self) -> Transmission:
        return next(iter(self.board.inflight.values()))

    def _tail_probe(self, now: float) -> Outgoing | None:
        """RACK's tail loss probe: after a silence, the oldest packet in flight again, on an
        EV none of the silent packets is on. When a whole window was lost (every packet of
        it on a failed link, or its ACKs back over it) no later ACK can reveal it and only
        the timer would, after its backoff; the probe's ACK lets RACK judge all the rest at
        once. Not on the path that delivered last: before a failure that is often the
        failed one (measured: both probes of a stall lost on it)."""
        if not self.board.inflight:
            return None
        tx = self._oldest_inflight()
        if not self.loss.tail_probe_due(now, self._last_heard, tx):
            return None
        self.stats.tail_probes += 1
        silent = {t.ev for t in self.board.inflight.values()}
        return self._data(tx.psn, True, now, self.pool.away_from(now, silent))

    def _detect_losses(self, now: float) -> None:
        lost_reorder, lost_timeout = self.loss.scan(self.board.inflight.values(), now)
        for tx in lost_reorder:
            self.stats.losses_by_reorder += 1
            self.cc.on_feedback(True, now, self.rtt.srtt, loss=True)
            self._lose(tx, now)
        if lost_timeout:
            self.stats.timeouts += 1
            self.stats.losses_by_timeout += len(lost_timeout)
            self.cc.on_timeout(first=self.loss.on_timeout())
            log.debug("RTO at %.6f: %d packets", now, len(lost_timeout))
            timeout = self._ledger.open_timeout(len(lost_timeout))
            # Losses on every path still in use share no path to blame: the cause is common
            # (a stall, the receiver, the sender's own link), and retiring them all would
            # leave nothing to send on. Losses on some paths (a failed plane's) are theirs.
            blame = not self.pool.covers_every_path([tx.ev for tx in lost_timeout])
            for tx in lost_timeout:
                self._timed_out.add(tx.psn)
                self._lose(tx, now, timeout, blame)

    def _lose(self, tx: Transmission, now: float, timeout: int = 0,
              blame: bool = True) -> None:
        self.board.mark_lost(tx.psn)
        self._avoid[tx.psn] = tx.ev
        self._lost_since.setdefault(tx.psn, self._first_sent[tx.psn])
        self.stats.loss_retransmits += 1
        self.pool.note_lost(tx.ev, ts_grid(tx.sent_at))
        if not blame or self.pool.delivered_since(tx.ev, tx.sent_at):
            # The EV (or its route) delivered a packet sent after this one: the path works,
            # this packet was late or unlucky. Not evidence of a failure.
            self.stats.losses_not_blamed += 1
        else:
            probe_delay = max(2 * self.rtt.srtt, self.cfg.min_rto)
            if self.pool.on_loss(tx.ev, now, probe_delay):
                log.info("retired EV 0x%04x (plane %d) at %.6f", tx.ev.ev, tx.ev.plane, now)
        self._ledger.record(tx.psn, LostRecord(ts_us(tx.sent_at), tx.ev, tx.sent_at,
                                               now - tx.sent_at, timeout))

    def _on_spurious(self, rec: LostRecord, lateness: float | None, now: float) -> None:
        """A loss turned out spurious: widen the reordering window by how late the packet
        was, undo the cut of the timeout that declared it lost (unless a resent copy
        arrived first for another of its packets, proving that timeout real), and
        put back the EV that its loss retired."""
        self.stats.spurious_retransmits += 1
        self._settle(rec)
        if lateness is None:
            return
        if rec.by_timeout and self.cc.undo_timeout():
            self.stats.timeouts_undone += 1
        cap = max(4 * self.rtt.srtt, self.rtt_hi.peak)  # beyond the slowest ACK seen: moot
        self.reorder.on_spurious(now, lateness, self.rtt.min_rtt, cap)
        self._delivered(rec.ev, ts_grid(rec.sent_at))

    def _delivered(self, st: EvState, sent_at: float) -> None:
        """A packet sent on `st` at `sent_at` (on the `ts` grid) arrived."""
        if self.pool.on_delivered(st, sent_at):
            self.stats.evs_unretired += 1
            log.info("EV 0x%04x (plane %d) delivered after its last loss: back in service",
                     st.ev, st.plane)

    def _settle(self, rec: LostRecord) -> None:
        """A packet declared lost arrived after all, whole or trimmed."""
        if self._ledger.settle(rec):
            self.stats.timeouts_spurious += 1

    def _header(self, mtype: MsgType, st: EvState, now: float, flags: int = 0, psn: int = 0,
                offset: int = 0, length: int = 0, reserved: int = 0) -> MrcHeader:
        # positional: a call through `**` would go through Python's argument parsing per packet
        return MrcHeader(mtype, flags, st.ev, self.conn, psn, 0, offset, length, 0, ts_us(now),
                         st.route, reserved)

    def _open_probe(self, now: float) -> Outgoing:
        st = self.pool.choose(now)
        self.stats.opens_sent += 1
        self._open_at = now + self._open_backoff
        self._open_backoff = min(self._open_backoff * 2, self.cfg.max_rto)
        hdr = self._header(MsgType.PROBE, st, now, offset=self.length, length=self.cfg.mss,
                           reserved=self.nonce)
        return Outgoing(hdr, b"", st.plane)

    def _probe(self, st: EvState, now: float) -> Outgoing:
        self.pool.start_probe(st, now, max(2 * self.loss.rto(), self.cfg.min_rto))
        return self._header_probe(st, now)

    def _last_call(self, now: float) -> list[Outgoing]:
        """The receiver has been silent for `idle_timeout`: before giving up, probe each
        plane on the EVs that delivered last (a few per plane) and wait one RTO. Any
        answer resets the silence, so the sender never gives up while a plane delivers
        to a live receiver, whatever EVs it happened to be trying."""
        wait = max(self.loss.rto(), self.cfg.min_rto)
        self._give_up = (self._last_heard, now + wait)
        log.info("receiver silent for %.3f s: last probes on every plane", now - self._last_heard)
        return [self._header_probe(st, now) for plane in range(len(self.pool.planes))
                for st in self.pool.freshest_in_plane(plane, LAST_CALL_EVS)]

    def _header_probe(self, st: EvState, now: float) -> Outgoing:
        self._probe_seq += 1
        self.stats.probes_sent += 1
        return Outgoing(self._header(MsgType.PROBE, st, now, psn=self._probe_seq), b"", st.plane)

    def _data(self, psn: int, retx: bool, now: float, st: EvState | None = None) -> Outgoing:
        """Send `psn` (on `st`, or where the pool chooses)."""
        avoid = self._avoid.pop(psn, None) if retx else None
        if st is not None:
            self._timed_out.discard(psn)
        elif psn in self._timed_out:
            # A timeout's resend goes where packets last got through: at a transfer's tail
            # no later ACK would reveal a second loss, only another timeout.
            self._timed_out.discard(psn)
            st = self.pool.freshest(now, avoid)
        if st is None:
            st = self.pool.choose(now, avoid)
        offset = psn * self.cfg.mss
        length = min(self.cfg.mss, self.length - offset)
        last = psn == self.npkts - 1
        flags = (LAST if last else 0) | (RETX if retx else 0)
        hdr = self._header(MsgType.DATA, st, now, flags=flags, psn=psn, offset=offset,
                           length=length, reserved=self.crc if last else 0)
        self.board.on_sent(Transmission(psn, now, st, retx))
        self.connection.last_sent = now
        if self._first_sent[psn] < 0:
            self._first_sent[psn] = now
        self.stats.data_sent += 1
        self.stats.bytes_sent += length
        if retx:
            self.stats.retransmits += 1
        return Outgoing(hdr, self.data[offset:offset + length], st.plane)

    # ----------------------------------------------------------------------- feedback
    def on_packet(self, plane: int, hdr: MrcHeader, now: float) -> None:
        """Feed one received ACK/NACK/PROBE_REPLY (anything else is counted and ignored)."""
        if self.done or self.failed:
            self.stats.ignored += 1
            return
        if hdr.type == MsgType.PROBE_REPLY:
            self._on_probe_reply(plane, hdr, now)
        elif hdr.type in (MsgType.ACK, MsgType.NACK) and not self.opening \
                and hdr.conn == self.conn:
            self._on_feedback(plane, hdr, now)
        else:
            self.stats.ignored += 1
            return
        self._fit_window_to_planes(now)

    def _rtt_sample(self, st: EvState | None, hdr: MrcHeader, now: float) -> float | None:
        age = ts_age(now, hdr.ts)
        if age > self.cfg.max_rto * 64:
            return None  # a ts we never sent (or ancient): no sample
        self.rtt.update(age)
        self.rtt_hi.update(age)
        if st is not None:
            st.rtt.update(age)
        return age

    def _on_probe_reply(self, plane: int, hdr: MrcHeader, now: float) -> None:
        st = self.pool.lookup(plane, hdr.ev)
        if self.opening and hdr.conn != 0 and hdr.reserved == self.nonce:
            self.opening = False
            self.conn = hdr.conn
            self.open_time = now
            self._last_heard = now
            self._rtt_sample(st, hdr, now)
            log.info("connection 0x%08x open after %.6f s", self.conn, now - self.start_time)
        elif not self.opening and hdr.conn == self.conn and st is not None:
            self._last_heard = now
            self.stats.probe_replies += 1
            self._rtt_sample(st, hdr, now)
            self.pool.on_delivered(st, echoed_send_time(now, hdr.ts))
            if not st.usable:
                self.pool.reinstate(st)
                log.info("reinstated EV 0x%04x (plane %d)", st.ev, st.plane)
        else:
            self.stats.ignored += 1

    def _on_feedback(self, plane: int, hdr: MrcHeader, now: float) -> None:
        if hdr.psn >= self.npkts:
            self.stats.ignored += 1
            return
        self._last_heard = now
        st = self.pool.lookup(plane, hdr.ev)
        age = self._rtt_sample(st, hdr, now)
        if age is not None and hdr.type == MsgType.ACK:
            self.queue_delay.update(age, self.rtt.min_rtt, hdr.qmax)
        if st is not None and age is not None and hdr.type == MsgType.ACK:
            self._delivered(st, echoed_send_time(now, hdr.ts))
        ecn = bool(hdr.flags & ECN_ECHO)
        high_q = self.cfg.qmax_threshold > 0 and hdr.qmax >= self.cfg.qmax_threshold
        is_nack = hdr.type == MsgType.NACK
        marked = ecn or high_q or is_nack
        self.stats.ecn_echoes += ecn
        self.stats.max_qmax = max(self.stats.max_qmax, hdr.qmax)
        if st is not None:
            if is_nack:
                st.trims += 1
            self.pool.on_feedback(st, marked, now, st.rtt.srtt or self.rtt.srtt,
                                  trimmed=is_nack)
        before = self.board.delivered_count
        if is_nack:
            self.stats.nacks += 1
            if self.cc.cwnd <= 1 and age is not None:
                # at one packet per RTT, the resend waits for when the trimmed packet's ACK
                # would have come (srtt after it left), not for its NACK, which comes back
                # in the header queue ahead of all the queued data
                self._paced_until = max(self._paced_until, now - age + self.rtt.srtt)
            if self._ledger.records and (rec := self._ledger.on_nack(hdr.psn, hdr.ts)):
                self._settle(rec)  # trimmed, not lost: no timer was needed
            if hdr.reserved and self.board.hold(hdr.psn):
                # the receiver's turn for this resend (`receiver.ResendPacer`)
                turn = now + hdr.reserved * 1e-9
                heapq.heappush(self._turns, (turn, hdr.psn))
                self.connection.turns_held += 1
                self.loss.on_turn(turn)
                queued = True
            else:
                queued = self.board.mark_lost(hdr.psn, front=True)
            if queued:
                self.stats.nack_retransmits += 1
                if st is not None:
                    self._avoid[hdr.psn] = st
        else:
            self.stats.acks += 1
            if self._ledger.records:
                verdict = self._ledger.on_ack(hdr.psn, hdr.ts, bool(hdr.flags & RETX), age)
                if verdict is not None:
                    self._on_spurious(*verdict, now)
                elif (rec := self._ledger.resend_acked(hdr.psn, hdr.ts)) and rec.by_timeout:
                    self.cc.confirm_timeout()  # a real loss: the timeout's cut stands
            tx = self.board.deliver(hdr.psn)
            if tx is not None and ts_us(tx.sent_at) == hdr.ts:  # this very transmission
                self.loss.on_delivered(tx)
            for psn in sacked_psns(hdr.ack, hdr.offset):
                if psn < self.npkts:
                    self.board.deliver(psn)
        self.board.deliver_through(hdr.ack)
        newly = self.board.delivered_count - before
        if newly:
            self.loss.on_progress(now)
            self._note_recoveries(now)
        elif not is_nack:
            self.stats.stale_acks += 1
        if self._window_takes_delay:
            delay = None if age is None or is_nack else age - self.rtt.min_rtt
            self.cc.on_feedback(ecn or high_q, now, self.rtt.srtt, trimmed=is_nack,
                                queue_delay=delay)
        else:
            self.cc.on_feedback(ecn or high_q, now, self.rtt.srtt, trimmed=is_nack)
        if self.board.complete:
            self.done = True
            self._leave_window()
            self.finish_time = now
            log.info("message of %d bytes delivered in %.6f s", self.length,
                     now - self.start_time)

    def _note_recoveries(self, now: float) -> None:
        for psn in [p for p in self._lost_since if self.board.delivered[p]]:
            self.stats.max_loss_recovery = max(self.stats.max_loss_recovery,
                                               now - self._lost_since.pop(psn))

    def _leave_window(self) -> None:
        """The message is over: what it still holds of the connection's window is freed."""
        self.board.forget_inflight()
        self.connection.turns_held -= len(self._turns)
        self._turns.clear()

    def _fail(self, reason: str) -> None:
        self.failed = True
        self._leave_window()
        self.error = reason
        log.warning("sender failed: %s", reason)
