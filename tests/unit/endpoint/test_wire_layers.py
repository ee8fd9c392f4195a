"""One format definition: struct pack/unpack and the Scapy layer agree on every field."""

import random

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from endpoint.layers import MRC
from endpoint.wire import (
    HEADER_FIELDS,
    HEADER_LEN,
    Flag,
    MalformedPacket,
    MrcHeader,
    MsgType,
    sack_bitmap,
    sacked_psns,
)


def random_header(rng: random.Random) -> MrcHeader:
    return MrcHeader(type=rng.randrange(5), flags=rng.randrange(256), ev=rng.getrandbits(16),
                     conn=rng.getrandbits(32), psn=rng.getrandbits(32), ack=rng.getrandbits(32),
                     offset=rng.getrandbits(32), length=rng.getrandbits(16),
                     qmax=rng.getrandbits(16), ts=rng.getrandbits(32),
                     route=rng.getrandbits(64), reserved=rng.getrandbits(32))


def test_field_table_is_40_bytes_and_matches_design_order():
    assert sum(bits for _n, bits, _k in HEADER_FIELDS) == HEADER_LEN * 8
    assert [n for n, _b, _k in HEADER_FIELDS] == [
        "version", "type", "flags", "ev", "conn", "psn", "ack", "offset", "length", "qmax",
        "ts", "route", "reserved"]
    assert len(MrcHeader().pack()) == HEADER_LEN == len(MRC())


def test_pack_unpack_and_scapy_agree_on_random_headers():
    rng = random.Random(7)
    for _ in range(200):
        hdr = random_header(rng)
        raw = hdr.pack()
        assert MrcHeader.unpack(raw) == hdr
        layer = MRC(raw)
        for name, _bits, _kind in HEADER_FIELDS:
            assert int(layer.getfieldval(name)) == getattr(hdr, name), name
        assert bytes(MRC(**{n: getattr(hdr, n) for n, _b, _k in HEADER_FIELDS})) == raw


def test_byte_positions_follow_the_design_table():
    raw = MrcHeader(type=MsgType.NACK, flags=0x05, ev=0x0102, conn=0x03040506, psn=7, ack=8,
                    offset=9, length=0x0A0B, qmax=0x0C0D, ts=0x0E0F1011,
                    route=0x1213141516171819, reserved=0x1A1B1C1D).pack()
    assert raw[0] == 0x12 and raw[1] == 0x05 and raw[2:4] == b"\x01\x02"
    assert raw[4:8] == b"\x03\x04\x05\x06" and raw[20:22] == b"\x0a\x0b"
    assert raw[22:24] == b"\x0c\x0d" and raw[24:28] == b"\x0e\x0f\x10\x11"
    assert raw[28:36] == bytes(range(0x12, 0x1A)) and raw[36:40] == b"\x1a\x1b\x1c\x1d"


@pytest.mark.parametrize("sport,dport", [(4793, 4793), (12345, 4793), (4793, 12345)])
def test_scapy_dissects_udp_4793_with_names(sport, dport):
    hdr = MrcHeader(type=MsgType.DATA, flags=Flag.LAST | Flag.RETX, ev=0xBEEF, conn=5, psn=3,
                    offset=4296, length=4, reserved=0xCAFEF00D)
    frame = Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=sport, dport=dport) / \
        Raw(hdr.pack() + b"data")
    pkt = Ether(bytes(frame))
    assert pkt.haslayer(MRC)
    mrc = pkt[MRC]
    assert mrc.sprintf("%type%") == "DATA"
    assert mrc.sprintf("%version%") == "v1"
    assert "LAST" in str(mrc.flags) and "RETX" in str(mrc.flags)
    assert mrc.ev == 0xBEEF and mrc.reserved == 0xCAFEF00D
    assert pkt[Raw].load == b"data"
    assert "MRC DATA ev=0xbeef conn=0x5 psn=3" in pkt.summary()


def test_other_udp_ports_are_not_mrc():
    pkt = Ether(bytes(Ether() / IP() / UDP(sport=53, dport=53) / Raw(bytes(40))))
    assert not pkt.haslayer(MRC)


def test_unpack_rejects_truncated_bad_version_and_type():
    good = MrcHeader().pack()
    with pytest.raises(MalformedPacket):
        MrcHeader.unpack(good[:39])
    with pytest.raises(MalformedPacket):
        MrcHeader.unpack(bytes([0x20]) + good[1:])
    with pytest.raises(MalformedPacket):
        MrcHeader.unpack(bytes([0x17]) + good[1:])


def test_sack_bitmap_roundtrip():
    received = {11, 12, 20, 42, 43, 99}
    bitmap = sack_bitmap(10, received)
    assert bitmap & 1 and bitmap >> 1 & 1 and not bitmap >> 2 & 1
    assert sacked_psns(10, bitmap) == [11, 12, 20, 42]  # 43 and 99 are past the 32 PSNs
