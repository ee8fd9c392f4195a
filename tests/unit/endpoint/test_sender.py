"""MrcSender driven by hand: setup, NACK, loss inference, RTO, probes, bad feedback."""

from endpoint.core.ev_pool import EvStatus
from endpoint.core.receiver import MrcReceiver, ReceiverConfig
from endpoint.core.sender import MrcSender, SenderConfig
from endpoint.wire import Flag, MrcHeader, MsgType

RTT = 0.001


def make(size: int = 100 * 1000, **kw) -> tuple[MrcSender, MrcReceiver]:
    cfg = SenderConfig(mss=1000, evs_per_plane=8, init_cwnd=8, seed=11, **kw)
    return MrcSender(bytes(range(256)) * (size // 256) + b"t" * (size % 256), 1, cfg), \
        MrcReceiver(ReceiverConfig(seed=12))


def establish(tx: MrcSender, rx: MrcReceiver, now: float = 0.0) -> float:
    (op,) = tx.poll(now)
    (reply,) = rx.on_packet("p", op.header, b"", False, now)
    tx.on_packet(op.plane, reply.header, now + RTT)
    assert not tx.opening
    return now + RTT


def deliver(tx: MrcSender, rx: MrcReceiver, outs, now: float, trim=(), ce=()):
    for out in outs:
        hdr = out.header
        payload = out.payload
        if hdr.type == MsgType.DATA and hdr.psn in trim:
            hdr.flags |= Flag.TRIMMED
            payload = b""
        for reply in rx.on_packet("p", hdr, payload, hdr.psn in ce, now):
            tx.on_packet(out.plane, reply.header, now)


def test_open_probe_carries_setup_fields_and_retries_with_backoff():
    tx, rx = make(5000)
    (op,) = tx.poll(0.0)
    h = op.header
    assert (h.type, h.conn, h.offset, h.length, h.reserved) == \
        (MsgType.PROBE, 0, 5000, 1000, tx.nonce)
    assert tx.poll(0.05) == []  # before the first retry
    (again,) = tx.poll(tx.cfg.initial_rto)
    assert again.header.ev != h.ev and again.header.reserved == tx.nonce
    assert tx.poll(tx.cfg.initial_rto * 2) == []  # backoff doubled
    (reply,) = rx.on_packet("p", again.header, b"", False, 0.2)
    tx.on_packet(0, reply.header, 0.2 + RTT)
    outs = tx.poll(0.2 + RTT)
    assert [o.header.psn for o in outs] == [0, 1, 2, 3, 4]
    assert outs[-1].header.flags & Flag.LAST and outs[-1].header.reserved == tx.crc
    assert all(o.header.conn == reply.header.conn for o in outs)


def test_complete_transfer_in_order():
    tx, rx = make(20_000)
    now = establish(tx, rx)
    while not tx.done:
        outs = tx.poll(now)
        assert outs
        now += RTT
        deliver(tx, rx, outs, now)
    (msg,) = rx.take_messages()
    assert msg.ok and msg.data == bytes(tx.data)
    assert tx.stats.retransmits == 0 and tx.stats.timeouts == 0
    assert tx.poll(now) == [] and tx.next_deadline() is None


def test_nack_retransmits_promptly_on_another_ev_without_timeout():
    tx, rx = make()
    now = establish(tx, rx)
    outs = tx.poll(now)
    trimmed_ev = next(o.header.ev for o in outs if o.header.psn == 2)
    cwnd_before = tx.cc.cwnd
    deliver(tx, rx, outs, now + RTT, trim={2})
    resend = tx.poll(now + RTT)
    assert resend[0].header.psn == 2  # first in line
    assert resend[0].header.flags & Flag.RETX and resend[0].header.ev != trimmed_ev
    assert tx.stats.nacks == 1 and tx.stats.nack_retransmits == 1
    assert tx.stats.timeouts == 0 and tx.stats.loss_retransmits == 0
    assert tx.cc.cwnd >= cwnd_before / 2  # a mark, not a collapse
    assert tx.pool.lookup(0, trimmed_ev).trims == 1
    assert tx.pool.lookup(0, trimmed_ev).status is EvStatus.CONGESTED


def test_sack_gap_loss_retires_ev_then_probe_reinstates_it():
    tx, rx = make()
    now = establish(tx, rx)
    outs = tx.poll(now)
    lost = next(o for o in outs if o.header.psn == 1)
    deliver(tx, rx, [o for o in outs if o is not lost], now + RTT)
    assert tx.stats.loss_retransmits == 0  # not yet: its EV's expected RTT has not passed
    later = now + 5 * RTT
    resend = [o for o in tx.poll(later) if o.header.type == MsgType.DATA and o.header.psn == 1]
    assert resend and resend[0].header.ev != lost.header.ev
    assert tx.stats.losses_by_reorder == 1 and tx.stats.timeouts == 0
    ev = tx.pool.lookup(0, lost.header.ev)
    assert ev.status is EvStatus.FAILED and tx.pool.retirements[0].ev == ev.ev
    probes = []
    t = later
    while not probes:
        t += RTT
        probes = [o for o in tx.poll(t) if o.header.type == MsgType.PROBE]
    assert probes[0].header.ev == ev.ev and ev.status is EvStatus.PROBING
    (reply,) = rx.on_packet("p", probes[0].header, b"", False, t)
    tx.on_packet(0, reply.header, t + RTT)
    assert ev.status is EvStatus.GOOD and tx.pool.reinstatements == 1


def test_rto_when_nothing_comes_back_then_idle_failure():
    tx, rx = make(idle_timeout=0.5)
    now = establish(tx, rx)
    first = tx.poll(now)
    deadline = tx.next_deadline()
    assert deadline is not None and deadline > now
    resent = tx.poll(deadline)
    assert tx.stats.timeouts == 1 and tx.stats.losses_by_timeout == len(first)
    assert resent and all(o.header.flags & Flag.RETX for o in resent)
    t = deadline
    while not tx.failed:
        t = tx.next_deadline()
        tx.poll(t)
    assert "no answer from the receiver" in tx.error and t <= now + 0.5 + 1e-9


def test_ecn_echo_shrinks_window_and_marks_ev():
    tx, rx = make()
    now = establish(tx, rx)
    outs = tx.poll(now)
    before = tx.cc.cwnd
    deliver(tx, rx, outs, now + RTT, ce={o.header.psn for o in outs})
    assert tx.stats.ecn_echoes == len(outs)
    assert tx.cc.cwnd < before + len(outs)  # no slow-start growth on marked ACKs
    assert tx.cc.ssthresh != float("inf")


def test_stale_unknown_and_bogus_feedback_is_ignored():
    tx, rx = make()
    now = establish(tx, rx)
    outs = tx.poll(now)
    deliver(tx, rx, outs[:2], now + RTT)
    delivered = tx.board.delivered_count
    deliver(tx, rx, outs[:2], now + RTT)  # duplicates: ACKs carry nothing new
    assert tx.stats.stale_acks == 2 and tx.board.delivered_count == delivered
    tx.on_packet(0, MrcHeader(type=MsgType.ACK, conn=tx.conn ^ 1, psn=3, ack=50), now)
    tx.on_packet(0, MrcHeader(type=MsgType.DATA, conn=tx.conn), now)
    tx.on_packet(0, MrcHeader(type=MsgType.ACK, conn=tx.conn, psn=10**6), now)
    assert tx.stats.ignored == 3
    # A confused receiver acking PSNs never sent must not mark them delivered.
    tx.on_packet(0, MrcHeader(type=MsgType.ACK, conn=tx.conn, psn=1, ack=90), now)
    assert tx.board.delivered_count == len(outs) and not tx.done
    assert len(tx.poll(now + RTT)) > 0  # and the sender keeps going
