"""Sans-I/O MRC receiver: any number of connections from any number of peers.

``on_packet(peer, hdr, payload, ce, now)`` returns the replies to send back the way the
packet came (same plane, addresses swapped) and ``take_messages()`` verifies and hands over
each completed message exactly once (call it after sending the replies).

- An open PROBE (``conn == 0``) creates a connection; `conn` is chosen here (random, unique,
  non-zero) and bound to the sender's (nonce, length, mss), so a repeated open gets the same
  answer. After that the connection is known by `conn` alone, whatever source address a
  packet has: a multi-plane sender uses one source address per plane. `peer` (the opener's
  address) only names the message.
- DATA is placed by `offset` whatever the order; every DATA gets an ACK (cumulative ack, SACK
  bitmap of the 32 PSNs after it, echo of ev, ECN as ECN_ECHO, qmax and ts). A TRIMMED DATA
  gets a NACK at once, which gives its resend a turn when `link_rate_bps` is set
  (`ResendPacer`). Duplicates are re-acknowledged with RETX set (the sender learns its
  retransmission was spurious) and never delivered twice.
- The message is complete when every PSN is in; it is then checked against the length
  announced at open and the CRC32 carried by the LAST packet.
- Anything else (malformed, unknown connection, inconsistent offsets) is counted and ignored.
"""

from __future__ import annotations

import logging
import math
import random
import zlib
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Final

from mrclab.endpoint.core.packets import Outgoing
from mrclab.endpoint.wire import (
    ACK,
    DATA,
    ECN_ECHO,
    ETH_IP_UDP_LEN,
    HEADER_LEN,
    LAST,
    NACK,
    PROBE,
    PROBE_REPLY,
    RETX,
    SACK_MASK,
    TRIMMED,
    MrcHeader,
)

log = logging.getLogger(__name__)

MAX_RESEND_WAIT_NS: Final = 0xFFFFFFFF  # a NACK's `reserved`: the wait in ns, 32 bits


@dataclass(slots=True)
class ReceiverConfig:
    max_message: int = 1 << 30
    idle_timeout: float = 30.0  # forget an unfinished connection silent this long
    keep_done: int = 4096  # finished connections remembered to re-ack late duplicates
    seed: int | None = None
    # The rate of the link a packet arrives on (bits/s): NACKs then ask for their resends
    # at this rate, one full frame's time apart per link (`ResendPacer`). 0: at once.
    link_rate_bps: float = 0.0
    # False: check each message's CRC as its bytes come in order and keep only those that
    # arrive ahead of a gap, not the whole message (a simulator's hundreds of 180 MB
    # transfers); messages are then handed over without their data
    keep_data: bool = True


@dataclass(slots=True)
class Message:
    """A completed message."""

    peer: Hashable
    conn: int
    data: bytes  # empty when the receiver keeps no data (ReceiverConfig.keep_data)
    ok: bool
    error: str
    started: float
    finished: float
    length: int  # bytes, kept or not
    nonce: int = 0  # the sender's open nonce: names the message to an application that set it


@dataclass(slots=True)
class ReceiverStats:
    data_packets: int = 0
    bytes_placed: int = 0
    duplicates: int = 0
    trimmed: int = 0
    nacks_sent: int = 0
    acks_sent: int = 0
    ecn_marked: int = 0
    probes: int = 0
    opens: int = 0
    unknown_conn: int = 0
    invalid: int = 0
    messages_ok: int = 0
    messages_bad: int = 0
    max_resend_wait: float = 0.0  # the longest a NACK asked its resend to wait (s)


class ResendPacer:
    """When each trimmed packet's resend may leave its sender, so that the resends reach
    the receiver's link no faster than it carries full frames.

    Trimming means the link's queue is full and its senders have sent more than it can
    carry. Each sender, told at once, would resend at once: the resends of a 64-to-1
    incast would meet the same full queue and be trimmed again, round after round. Only
    the receiver sees them all, so it gives each resend a turn (NDP's pull queue, with the
    turn written in the NACK instead of a pull packet sent at that time): turns are a full
    frame's time apart on each link, first come first served."""

    __slots__ = ("rate_bps", "_free_at")

    def __init__(self, rate_bps: float) -> None:
        self.rate_bps = rate_bps
        self._free_at: dict[Hashable, float] = {}  # link -> when its next turn begins

    def slot(self, link: Hashable, payload: int, now: float) -> float:
        """How long the resend of a packet of `payload` bytes that arrived trimmed on
        `link` at `now` should wait before it is sent."""
        frame_s = (payload + ETH_IP_UDP_LEN + HEADER_LEN) * 8 / self.rate_bps
        start = max(now, self._free_at.get(link, now))
        self._free_at[link] = start + frame_s
        return start - now


@dataclass(slots=True, eq=False)
class _Connection:
    conn: int
    peer: Hashable
    nonce: int
    length: int
    mss: int
    npkts: int
    started: float
    last_seen: float
    buf: bytearray
    cum: int = 0
    # the PSNs received from `cum` on, as the bits of an int: bit i = PSN cum + i. An
    # ACK's SACK bitmap is then a shift, where flags per PSN took a scan per ACK.
    received: int = 0
    count: int = 0
    crc: int | None = None  # the sender's, from the LAST packet
    # without keep_data: the CRC of the bytes below `cum`, and the packets above it
    prefix_crc: int = 0
    ahead: dict[int, bytes] = field(default_factory=dict)
    last_end: int | None = None
    done: bool = False


class MrcReceiver:
    def __init__(self, config: ReceiverConfig | None = None) -> None:
        self.cfg = config or ReceiverConfig()
        self._rng = random.Random(self.cfg.seed)
        self._conns: dict[int, _Connection] = {}
        self._opens: dict[tuple[int, int, int], int] = {}  # (nonce, length, mss) -> conn
        self._ready: list[Message] = []
        self._completing: list[tuple[_Connection, float]] = []
        self.stats = ReceiverStats()
        self._pacer = ResendPacer(self.cfg.link_rate_bps) if self.cfg.link_rate_bps > 0 else None

    @property
    def active(self) -> int:
        return sum(1 for c in self._conns.values() if not c.done)

    def take_messages(self) -> list[Message]:
        """Verify and hand over the messages completed since the last call.

        Verification (CRC32 over the whole message) runs here rather than in `on_packet`,
        so a driver sends the final ACKs first and the sender is not kept waiting."""
        completing, self._completing = self._completing, []
        for conn, now in completing:
            self._finish(conn, now)
        ready, self._ready = self._ready, []
        return ready

    def on_packet(self, peer: Hashable, hdr: MrcHeader, payload: bytes | memoryview,
                  ce: bool, now: float, link: Hashable = None) -> list[Outgoing]:
        """`link`: the interface the packet came in on (resends are paced per link)."""
        if hdr.type == PROBE:
            return self._on_probe(peer, hdr, now)
        if hdr.type != DATA:
            self.stats.invalid += 1
            return []
        conn = self._conns.get(hdr.conn)
        if conn is None:
            self.stats.unknown_conn += 1
            return []
        return self._on_data(conn, hdr, payload, ce, now, link)

    # --------------------------------------------------------------------- setup, probes
    def _on_probe(self, peer: Hashable, hdr: MrcHeader, now: float) -> list[Outgoing]:
        self.stats.probes += 1
        if hdr.conn == 0:
            conn_id = self._open(peer, hdr, now)
            if conn_id is None:
                return []
            reply = MrcHeader(PROBE_REPLY, 0, hdr.ev, conn_id, hdr.psn, 0, 0, 0,
                              hdr.qmax, hdr.ts, 0, hdr.reserved)
            return [Outgoing(reply)]
        conn = self._conns.get(hdr.conn)
        if conn is None:
            self.stats.unknown_conn += 1
            return []
        conn.last_seen = now
        reply = MrcHeader(PROBE_REPLY, 0, hdr.ev, hdr.conn, hdr.psn, conn.cum, 0, 0,
                          hdr.qmax, hdr.ts)
        return [Outgoing(reply)]

    def _open(self, peer: Hashable, hdr: MrcHeader, now: float) -> int | None:
        key = (hdr.reserved, hdr.offset, hdr.length)
        known = self._opens.get(key)
        if known is not None:
            return known
        length, mss = hdr.offset, hdr.length
        if mss == 0 or length > self.cfg.max_message:
            self.stats.invalid += 1
            log.warning("refused open from %s: length %d, mss %d", peer, length, mss)
            return None
        conn_id = 0
        while conn_id == 0 or conn_id in self._conns:
            conn_id = self._rng.getrandbits(32)
        npkts = max(1, math.ceil(length / mss))
        buf = bytearray(length) if self.cfg.keep_data else bytearray()
        self._conns[conn_id] = _Connection(conn_id, peer, hdr.reserved, length, mss, npkts,
                                           now, now, buf)
        self._opens[key] = conn_id
        self.stats.opens += 1
        log.info("open conn 0x%08x from %s: %d bytes", conn_id, peer, length)
        return conn_id

    # --------------------------------------------------------------------------- data
    def _on_data(self, conn: _Connection, hdr: MrcHeader, payload: bytes | memoryview,
                 ce: bool, now: float, link: Hashable) -> list[Outgoing]:
        psn = hdr.psn
        trimmed = bool(hdr.flags & TRIMMED)
        expected = min(conn.mss, conn.length - psn * conn.mss) if psn < conn.npkts else -1
        if expected < 0 or hdr.offset != psn * conn.mss or hdr.length != expected \
                or (not trimmed and len(payload) != expected):
            self.stats.invalid += 1
            return []
        conn.last_seen = now
        self.stats.data_packets += 1
        self.stats.ecn_marked += ce
        beyond = psn - conn.cum  # its bit in `received`
        if beyond < 0 or conn.received >> beyond & 1:
            # RETX on the ACK says "duplicate": the sender learns that one of its
            # retransmissions was spurious and widens its reordering window.
            self.stats.duplicates += 1
            return [self._ack(conn, hdr, ce, duplicate=True)]
        if trimmed:
            self.stats.trimmed += 1
            self.stats.nacks_sent += 1
            wait = self._pacer.slot(link, hdr.length, now) if self._pacer is not None else 0.0
            self.stats.max_resend_wait = max(self.stats.max_resend_wait, wait)
            return [self._reply(conn, hdr, ce, NACK, 0,
                                reserved=min(round(wait * 1e9), MAX_RESEND_WAIT_NS))]
        if hdr.flags & LAST:
            if psn != conn.npkts - 1:
                self.stats.invalid += 1
                return []
            conn.crc, conn.last_end = hdr.reserved, hdr.offset + hdr.length
        if self.cfg.keep_data:
            conn.buf[hdr.offset:hdr.offset + expected] = payload
        elif psn != conn.cum:
            conn.ahead[psn] = bytes(payload)  # after a gap: kept until the gap fills
        conn.received |= 1 << beyond
        conn.count += 1
        self.stats.bytes_placed += expected
        while conn.received & 1:
            if not self.cfg.keep_data:
                # the packet itself when it comes in order (no copy kept)
                placed = payload if conn.cum == psn else conn.ahead.pop(conn.cum)
                conn.prefix_crc = zlib.crc32(placed, conn.prefix_crc)
            conn.cum += 1
            conn.received >>= 1
        reply = self._ack(conn, hdr, ce)
        if conn.count == conn.npkts and not conn.done:
            conn.done = True
            self._completing.append((conn, now))
        return [reply]

    def _ack(self, conn: _Connection, hdr: MrcHeader, ce: bool,
             duplicate: bool = False) -> Outgoing:
        bitmap = conn.received >> 1 & SACK_MASK  # bit i: PSN cum + 1 + i
        self.stats.acks_sent += 1
        return self._reply(conn, hdr, ce, ACK, bitmap, RETX if duplicate else 0)

    @staticmethod
    def _reply(conn: _Connection, hdr: MrcHeader, ce: bool, mtype: int,
               bitmap: int, flags: int = 0, reserved: int = 0) -> Outgoing:
        flags |= ECN_ECHO if ce else 0
        return Outgoing(MrcHeader(mtype, flags, hdr.ev, conn.conn, hdr.psn, conn.cum, bitmap,
                                  hdr.length, hdr.qmax, hdr.ts, reserved=reserved))

    def _finish(self, conn: _Connection, now: float) -> None:
        data = bytes(conn.buf)
        crc = zlib.crc32(data) if self.cfg.keep_data else conn.prefix_crc
        error = ""
        if conn.last_end != conn.length:
            error = f"length mismatch: LAST packet ends at {conn.last_end}, open said {conn.length}"
        elif crc != conn.crc:
            error = f"CRC32 mismatch: got 0x{crc:08x}, LAST said 0x{conn.crc:08x}"
        ok = not error
        if ok:
            self.stats.messages_ok += 1
        else:
            self.stats.messages_bad += 1
            log.error("conn 0x%08x from %s: %s", conn.conn, conn.peer, error)
        self._ready.append(Message(conn.peer, conn.conn, data, ok, error, conn.started, now,
                                   conn.length, conn.nonce))
        conn.buf = bytearray()  # the message is handed over; keep only what re-acks need
        self._forget_old_done()

    def _forget_old_done(self) -> None:
        done = [c for c in self._conns.values() if c.done]
        for conn in done[:max(0, len(done) - self.cfg.keep_done)]:
            self._drop(conn)

    def _drop(self, conn: _Connection) -> None:
        self._conns.pop(conn.conn, None)
        self._opens.pop((conn.nonce, conn.length, conn.mss), None)

    def expire(self, now: float) -> int:
        """Forget unfinished connections idle longer than `idle_timeout`; returns how many."""
        stale = [c for c in self._conns.values()
                 if not c.done and now - c.last_seen > self.cfg.idle_timeout]
        for conn in stale:
            log.warning("conn 0x%08x from %s abandoned after %d/%d packets", conn.conn,
                        conn.peer, conn.count, conn.npkts)
            self._drop(conn)
        return len(stale)
