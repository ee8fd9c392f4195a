"""Sender-side scoreboard: which PSNs are delivered, in flight (in send order) or to resend."""

from __future__ import annotations

from collections import deque

from mrclab.endpoint.core.ev_pool import EvState


class Transmission:
    """The latest transmission of one PSN (a plain class, one per packet: see
    `wire.MrcHeader`)."""

    __slots__ = ("psn", "sent_at", "ev", "retx", "seq")

    def __init__(self, psn: int, sent_at: float, ev: EvState, retx: bool,
                 seq: int = 0) -> None:
        self.psn = psn
        self.sent_at = sent_at
        self.ev = ev
        self.retx = retx
        self.seq = seq  # send order across all transmissions (set by the scoreboard)


class InFlight:
    """Packets in flight, per plane and in all, of the messages of one connection (each
    message's `SendScoreboard` adds its own): what the connection's window and the choice
    among planes weigh."""

    __slots__ = ("by_plane", "total")

    def __init__(self) -> None:
        self.by_plane: dict[int, int] = {}
        self.total = 0


class SendScoreboard:
    """PSN states of one message. `inflight` keeps send order, oldest first."""

    def __init__(self, npkts: int, shared: InFlight | None = None) -> None:
        """`shared`: the in-flight counts of the message's connection, which other
        messages' scoreboards add to as well (`connection.Connection`)."""
        self.npkts = npkts
        self.delivered = bytearray(npkts)
        self.delivered_count = 0
        self.cum = 0  # first PSN not yet delivered
        self.next_new = 0  # first PSN never sent
        self.sends = 0
        self.inflight: dict[int, Transmission] = {}
        self.shared = InFlight() if shared is None else shared
        self._resend: deque[int] = deque()
        self._resend_set: set[int] = set()

    @property
    def complete(self) -> bool:
        return self.delivered_count == self.npkts

    @property
    def pending(self) -> bool:
        """Something waits to be sent: a resend or a PSN never sent."""
        return bool(self._resend_set) or self.next_new < self.npkts

    def next_psn(self) -> tuple[int, bool] | None:
        """The PSN to send next and whether it is a retransmission; resends go first."""
        while self._resend:
            psn = self._resend.popleft()
            if psn in self._resend_set:
                self._resend_set.discard(psn)
                if not self.delivered[psn]:
                    return psn, True
        if self.next_new < self.npkts:
            self.next_new += 1
            return self.next_new - 1, False
        return None

    def on_sent(self, tx: Transmission) -> None:
        self.sends += 1
        tx.seq = self.sends
        self._take(tx.psn)  # re-insert: a resend moves to the back
        self.inflight[tx.psn] = tx
        shared, plane = self.shared, tx.ev.plane
        shared.by_plane[plane] = shared.by_plane.get(plane, 0) + 1
        shared.total += 1

    def _take(self, psn: int) -> Transmission | None:
        tx = self.inflight.pop(psn, None)
        if tx is not None:
            self.shared.by_plane[tx.ev.plane] -= 1
            self.shared.total -= 1
        return tx

    def forget_inflight(self) -> None:
        """The message is over (delivered or given up): what it still counts as in flight
        leaves the shared counts."""
        for psn in list(self.inflight):
            self._take(psn)

    def deliver(self, psn: int) -> Transmission | None:
        """Mark one PSN delivered; returns its transmission if it was still in flight."""
        if not 0 <= psn < self.next_new or self.delivered[psn]:
            return None  # never sent (a confused or stale peer) or already known
        self.delivered[psn] = 1
        self.delivered_count += 1
        self._resend_set.discard(psn)
        tx = self._take(psn)
        while self.cum < self.npkts and self.delivered[self.cum]:
            self.cum += 1
        return tx

    def deliver_through(self, cum_ack: int) -> list[Transmission]:
        """Everything below `cum_ack` is delivered; returns the transmissions that covered."""
        covered = []
        for psn in range(self.cum, min(cum_ack, self.next_new)):
            if not self.delivered[psn]:
                tx = self.deliver(psn)
                if tx is not None:
                    covered.append(tx)
        return covered

    def mark_lost(self, psn: int, front: bool = False) -> bool:
        """Take a PSN out of flight and queue it for resending (front: before other resends).

        False when there is nothing to do: already delivered or already queued."""
        if not self.hold(psn):
            return False
        self._resend_set.add(psn)
        if front:
            self._resend.appendleft(psn)
        else:
            self._resend.append(psn)
        return True

    def hold(self, psn: int) -> bool:
        """Take a PSN out of flight to resend later (`release`); False when it is delivered
        or already queued."""
        self._take(psn)
        return self.release(psn)

    def release(self, psn: int) -> bool:
        """A held PSN's turn came: True when it is still to be sent (`next_psn` skips it)."""
        return not self.delivered[psn] and psn not in self._resend_set
