"""MrcReceiver: setup, placement, ACK/SACK/NACK, integrity, bad input."""

import random
import zlib

import pytest

from mrclab.endpoint.core.receiver import MrcReceiver, ReceiverConfig
from mrclab.endpoint.wire import ETH_IP_UDP_LEN, HEADER_LEN, Flag, MrcHeader, MsgType

MSS = 100


def open_conn(rx: MrcReceiver, length: int, peer: str = "a", nonce: int = 77) -> int:
    replies = rx.on_packet(peer, MrcHeader(type=MsgType.PROBE, ev=9, offset=length, length=MSS,
                                           reserved=nonce, ts=123), b"", False, 0.0)
    assert len(replies) == 1
    reply = replies[0].header
    assert reply.type == MsgType.PROBE_REPLY and reply.reserved == nonce and reply.ts == 123
    assert reply.ev == 9 and reply.conn != 0
    return reply.conn


def data(conn: int, msg: bytes, psn: int, flags: int = 0, ev: int = 1, payload=None):
    off = psn * MSS
    chunk = msg[off:off + MSS]
    last = off + MSS >= len(msg)
    hdr = MrcHeader(type=MsgType.DATA, flags=flags | (Flag.LAST if last else 0), ev=ev,
                    conn=conn, psn=psn, offset=off, length=len(chunk), qmax=3, ts=psn + 1000,
                    reserved=zlib.crc32(msg) if last else 0)
    return hdr, (chunk if payload is None else payload)


def test_open_is_idempotent_per_nonce_whatever_the_plane():
    rx = MrcReceiver(ReceiverConfig(seed=1))
    c1 = open_conn(rx, 1000)
    assert open_conn(rx, 1000) == c1
    assert open_conn(rx, 1000, peer="b") == c1  # a retry on another plane's address
    assert open_conn(rx, 1000, nonce=78) != c1
    assert open_conn(rx, 1001) != c1
    assert rx.stats.opens == 3


def test_out_of_order_placement_sack_and_single_delivery():
    msg = bytes(range(256)) * 4  # 1024 bytes -> 11 packets
    rx = MrcReceiver(ReceiverConfig(seed=2))
    conn = open_conn(rx, len(msg))
    order = [3, 0, 5, 1, 10, 2, 4, 9, 8, 7, 6]
    for i, psn in enumerate(order):
        hdr, payload = data(conn, msg, psn)
        (reply,) = rx.on_packet("a", hdr, payload, ce=(psn == 5), now=0.1 * i)
        ack = reply.header
        assert ack.type == MsgType.ACK and ack.psn == psn and ack.ev == hdr.ev
        assert ack.qmax == 3 and ack.ts == hdr.ts
        assert bool(ack.flags & Flag.ECN_ECHO) == (psn == 5)
        assert not ack.flags & Flag.RETX  # first copies: not duplicates
        if i == 0:
            assert ack.ack == 0 and ack.offset == 1 << 2  # PSN 3 = ack + 1 + 2
        if psn == 1:  # 0,1 in; 3 and 5 held: bitmap bits for PSN 3 and 5 after ack=2
            assert ack.ack == 2 and ack.offset == (1 << 0) | (1 << 2)
    (msg_out,) = rx.take_messages()
    assert msg_out.ok and msg_out.data == msg and msg_out.peer == "a"
    # Late duplicates are re-acknowledged, never delivered again.
    hdr, payload = data(conn, msg, 4)
    (reply,) = rx.on_packet("a", hdr, payload, False, 2.0)
    assert reply.header.type == MsgType.ACK and reply.header.ack == 11
    assert reply.header.flags & Flag.RETX  # "duplicate": the sender resent needlessly
    assert reply.header.ts == hdr.ts  # echoes the duplicate copy's own timestamp
    assert rx.take_messages() == []
    assert rx.stats.duplicates == 1 and rx.stats.messages_ok == 1


@pytest.mark.parametrize("keep_data", [True, False])
def test_acks_match_per_psn_flags_whatever_the_order(keep_data):
    """Cumulative ack, SACK bitmap and RETX of every ACK, against flags kept per PSN:
    shuffled arrivals with duplicates and gaps far wider than the bitmap's 32 PSNs."""
    rng = random.Random(5)
    msg = rng.randbytes(150 * MSS - 37)
    rx = MrcReceiver(ReceiverConfig(seed=4, keep_data=keep_data))
    conn = open_conn(rx, len(msg))
    order = list(range(150))
    rng.shuffle(order)
    order[10:10] = [order[3], order[7]]  # duplicates, before and after their gaps filled
    order += [0, 149, 75]
    got = bytearray(150)
    for i, psn in enumerate(order):
        hdr, payload = data(conn, msg, psn)
        (reply,) = rx.on_packet("a", hdr, payload, False, 0.01 * i)
        duplicate = bool(got[psn])
        got[psn] = 1
        cum = got.find(0) if 0 in got else len(got)
        bitmap = sum(1 << j for j in range(32) if cum + 1 + j < len(got) and got[cum + 1 + j])
        ack = reply.header
        assert (ack.ack, ack.offset, bool(ack.flags & Flag.RETX)) == (cum, bitmap, duplicate)
    (done,) = rx.take_messages()
    assert done.ok and rx.stats.duplicates == 5


def test_trimmed_packet_gets_nack_and_later_copy_is_placed():
    msg = b"x" * 250
    rx = MrcReceiver(ReceiverConfig(seed=3))
    conn = open_conn(rx, len(msg))
    hdr, _ = data(conn, msg, 1, flags=Flag.TRIMMED)
    (nack,) = rx.on_packet("a", hdr, b"", True, 0.0)
    assert nack.header.type == MsgType.NACK and nack.header.psn == 1
    assert nack.header.flags & Flag.ECN_ECHO
    assert nack.header.reserved == 0  # no link rate given: resend at once
    assert rx.stats.trimmed == 1 and rx.stats.nacks_sent == 1
    for psn in (0, 1, 2):
        rx.on_packet("a", *data(conn, msg, psn), False, 0.1)
    (out,) = rx.take_messages()
    assert out.ok and out.data == msg


def test_nacks_give_the_resends_turns_a_frame_apart_on_each_link():
    rate = 8e6
    rx = MrcReceiver(ReceiverConfig(seed=5, link_rate_bps=rate))
    msg = b"y" * 950  # 10 packets, the last of 50 bytes
    conn = open_conn(rx, len(msg))
    frame_ns = [(n + ETH_IP_UDP_LEN + HEADER_LEN) * 8 / rate * 1e9 for n in (MSS, 50)]

    def nack(psn: int, now: float, link: str) -> int:
        hdr, _ = data(conn, msg, psn, flags=Flag.TRIMMED)
        (reply,) = rx.on_packet("a", hdr, b"", False, now, link=link)
        assert reply.header.type == MsgType.NACK and reply.header.psn == psn
        return reply.header.reserved

    # a burst of trims on one link: each resend waits for the frames ahead of it
    assert [nack(p, 0.0, "eth0") for p in (0, 1, 9, 2)] == \
        [0, round(frame_ns[0]), round(2 * frame_ns[0]),
         round(2 * frame_ns[0] + frame_ns[1])]  # the short last packet takes less
    assert nack(3, 0.0, "eth1") == 0  # another link (plane) has turns of its own
    assert nack(4, 1.0, "eth0") == 0  # the turns handed out have passed
    assert rx.stats.max_resend_wait == pytest.approx((2 * frame_ns[0] + frame_ns[1]) / 1e9)


def test_crc_mismatch_is_reported_not_delivered_as_ok():
    msg = b"abc" * 100
    rx = MrcReceiver(ReceiverConfig(seed=4))
    conn = open_conn(rx, len(msg))
    for psn in range(3):
        hdr, payload = data(conn, msg, psn)
        if psn == 1:
            payload = b"Z" * len(payload)  # corrupted in flight, checksum not updated
        rx.on_packet("a", hdr, payload, False, 0.0)
    (out,) = rx.take_messages()
    assert not out.ok and "CRC32" in out.error
    assert rx.stats.messages_bad == 1


@pytest.mark.parametrize("corrupt", [None, 6])
def test_without_keep_data_the_crc_is_checked_in_order_and_only_gaps_are_held(corrupt):
    msg = bytes(range(256)) * 4  # 11 packets
    rx = MrcReceiver(ReceiverConfig(seed=5, keep_data=False))
    conn = open_conn(rx, len(msg))
    held = []
    for psn in [3, 1, 2, 5, 4, 0, 10, 6, 9, 8, 7]:
        hdr, payload = data(conn, msg, psn)
        if psn == corrupt:
            payload = b"Z" * len(payload)
        rx.on_packet("a", hdr, payload, False, 0.0)
        held.append(len(rx._conns[conn].ahead))
    # 3, 1, 2, 5, 4 wait for 0; once it came all six went into the CRC and were let go
    assert held == [1, 2, 3, 4, 5, 0, 1, 1, 2, 3, 0]
    (out,) = rx.take_messages()
    assert out.data == b"" and out.length == len(msg)
    assert out.ok == (corrupt is None)
    assert corrupt is None or "CRC32 mismatch" in out.error


def test_bad_input_is_counted_and_ignored():
    msg = b"q" * 300
    rx = MrcReceiver(ReceiverConfig(seed=5))
    conn = open_conn(rx, len(msg))
    hdr, payload = data(conn, msg, 0)
    assert rx.on_packet("a", MrcHeader(type=MsgType.DATA, conn=conn + 1), b"", False, 0) == []
    assert rx.on_packet("a", MrcHeader(type=MsgType.PROBE, conn=conn + 1), b"", False, 0) == []
    assert rx.stats.unknown_conn == 2
    bad = [MrcHeader(type=MsgType.DATA, conn=conn, psn=0, offset=5, length=100),  # offset
           MrcHeader(type=MsgType.DATA, conn=conn, psn=9, offset=900, length=100),  # psn range
           MrcHeader(type=MsgType.DATA, conn=conn, psn=0, offset=0, length=99)]  # length
    for b in bad:
        assert rx.on_packet("a", b, b"q" * b.length, False, 0) == []
    assert rx.on_packet("a", hdr, payload[:50], False, 0) == []  # truncated payload
    assert rx.on_packet("a", MrcHeader(type=MsgType.ACK, conn=conn), b"", False, 0) == []
    assert rx.stats.invalid == 5
    assert rx.on_packet("a", MrcHeader(type=MsgType.PROBE, offset=10, length=0,
                                       reserved=1), b"", False, 0) == []  # mss 0 refused
    assert rx.stats.data_packets == 0 and rx.take_messages() == []
    # The same connection from another source address (a second plane) is accepted.
    (ack,) = rx.on_packet("a-plane-2", hdr, payload, False, 0)
    assert ack.header.type == MsgType.ACK and rx.stats.data_packets == 1


def test_probe_on_known_conn_is_echoed_and_idle_conn_expires():
    rx = MrcReceiver(ReceiverConfig(seed=6, idle_timeout=5.0))
    conn = open_conn(rx, 1000)
    (reply,) = rx.on_packet("a", MrcHeader(type=MsgType.PROBE, ev=0x55, conn=conn, psn=4,
                                           ts=99), b"", False, 1.0)
    assert (reply.header.type, reply.header.ev, reply.header.psn, reply.header.ts) == \
        (MsgType.PROBE_REPLY, 0x55, 4, 99)
    assert rx.expire(3.0) == 0 and rx.active == 1
    assert rx.expire(10.0) == 1 and rx.active == 0
    assert rx.on_packet("a", MrcHeader(type=MsgType.PROBE, conn=conn), b"", False, 11) == []


def test_empty_message_completes():
    rx = MrcReceiver(ReceiverConfig(seed=7))
    conn = open_conn(rx, 0)
    hdr = MrcHeader(type=MsgType.DATA, flags=Flag.LAST, conn=conn, psn=0, offset=0, length=0,
                    reserved=zlib.crc32(b""))
    rx.on_packet("a", hdr, b"", False, 0)
    (out,) = rx.take_messages()
    assert out.ok and out.data == b""
