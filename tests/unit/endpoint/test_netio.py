"""Frame building and parsing without sockets: checksums, Scapy agreement, bad frames."""

import random
import struct

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from mrclab.endpoint.kernel_routes import read_arp_table
from mrclab.endpoint.layers import MRC
from mrclab.endpoint.netio import (
    ECT0,
    FrameAddress,
    FrameBuilder,
    ip_checksum,
    mac_bytes,
    mac_str,
    parse_frame,
)
from mrclab.endpoint.wire import MalformedPacket, MrcHeader, MsgType

ADDR = FrameAddress.of("02:00:00:00:00:01", "02:00:00:00:00:02", "10.0.0.1", "10.0.1.2")


def build(payload: bytes = b"hello", tos: int = ECT0) -> bytes:
    hdr = MrcHeader(type=MsgType.DATA, ev=0x1234, conn=9, psn=2, offset=2864, length=5)
    return FrameBuilder(ADDR).build(hdr, payload, tos)


def test_frame_is_valid_for_scapy_and_roundtrips():
    frame = build()
    pkt = Ether(frame)
    assert pkt[Ether].src == "02:00:00:00:00:01" and pkt[Ether].dst == "02:00:00:00:00:02"
    assert pkt[IP].src == "10.0.0.1" and pkt[IP].dst == "10.0.1.2" and pkt[IP].tos == ECT0
    assert pkt[UDP].sport == pkt[UDP].dport == 4793 and pkt[UDP].chksum == 0
    recomputed = IP(bytes(pkt[IP]))
    del recomputed.chksum
    assert IP(bytes(recomputed)).chksum == pkt[IP].chksum
    assert pkt[MRC].psn == 2 and pkt[MRC].ev == 0x1234
    parsed = parse_frame(frame)
    assert parsed.addr == ADDR and parsed.peer_ip == "10.0.0.1"
    assert bytes(parsed.payload) == b"hello" and parsed.header.conn == 9 and not parsed.ce
    assert parse_frame(build(tos=0x03)).ce


def test_reply_addressing_swaps_both_layers():
    rev = ADDR.reversed()
    assert (rev.src_mac, rev.dst_ip) == (ADDR.dst_mac, ADDR.src_ip)


def test_ethernet_padding_is_not_payload():
    frame = build(b"") + bytes(10)  # short frames get padded on the wire
    assert bytes(parse_frame(frame).payload) == b""


def test_ip_checksum_of_valid_header_is_zero():
    frame = build()
    assert ip_checksum(frame[14:34]) == 0


@pytest.mark.parametrize("mutate", [
    lambda f: f[:60],  # truncated
    lambda f: f[:12] + b"\x86\xdd" + f[14:],  # IPv6 ethertype
    lambda f: f[:23] + b"\x06" + f[24:],  # TCP
    lambda f: f[:16] + struct.pack("!H", 9000) + f[18:],  # IPv4 length beyond frame
    lambda f: f[:20] + b"\x20\x01" + f[22:],  # fragment
    lambda f: f[:34] + struct.pack("!HH", 53, 53) + f[38:],  # other ports
    lambda f: f[:38] + struct.pack("!H", 7) + f[40:],  # UDP length disagrees
    lambda f: f[:42] + b"\x20" + f[43:],  # MRC version 2
    lambda f: f[:42] + b"\x1f" + f[43:],  # MRC type 15
])
def test_malformed_frames_are_rejected(mutate):
    with pytest.raises(MalformedPacket):
        parse_frame(mutate(build()))


def test_random_garbage_never_raises_anything_else():
    rng = random.Random(1)
    good = build()
    for _ in range(2000):
        frame = bytearray(good[:rng.randrange(len(good) + 1)])
        for _ in range(rng.randrange(4)):
            if frame:
                frame[rng.randrange(len(frame))] = rng.randrange(256)
        try:
            parse_frame(bytes(frame))
        except MalformedPacket:
            pass


def test_mac_helpers():
    assert mac_str(mac_bytes("02:AB:00:00:00:ff")) == "02:ab:00:00:00:ff"
    with pytest.raises(ValueError):
        mac_bytes("02:ab")


def test_arp_table_parsing_keeps_complete_entries_only():
    text = (
        "IP address       HW type     Flags       HW address            Mask     Device\n"
        "10.0.0.2         0x1         0x6         aa:bb:cc:dd:ee:ff     *        h1-eth0\n"
        "10.0.0.3         0x1         0x0         00:00:00:00:00:00     *        h1-eth0\n"
        "10.1.0.2         0x1         0x2         AA:00:00:00:00:01     *        h1-eth1\n"
    )
    assert read_arp_table(text) == {("10.0.0.2", "h1-eth0"): "aa:bb:cc:dd:ee:ff",
                                    ("10.1.0.2", "h1-eth1"): "aa:00:00:00:00:01"}
