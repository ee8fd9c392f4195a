"""One format definition: the Scapy layer; the struct codec and headers.p4 must match it."""

import random
import re
from pathlib import Path

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from mrclab.endpoint.layers import FLAG_NAMES, MRC, TYPE_NAMES
from mrclab.endpoint.wire import (
    HEADER_LEN,
    Flag,
    MalformedPacket,
    MrcHeader,
    MsgType,
    sacked_psns,
)

HEADERS_P4 = Path(__file__).resolve().parents[3] / "mrclab" / "p4src" / "headers.p4"
FIELDS = [(f.name, int(f.sz * 8)) for f in MRC.fields_desc]
# `type` is a P4 keyword: headers.p4 calls the field msg_type.
P4_NAMES = {"msg_type": "type"}


def random_header(rng: random.Random) -> MrcHeader:
    return MrcHeader(type=rng.randrange(5), flags=rng.randrange(256), ev=rng.getrandbits(16),
                     conn=rng.getrandbits(32), psn=rng.getrandbits(32), ack=rng.getrandbits(32),
                     offset=rng.getrandbits(32), length=rng.getrandbits(16),
                     qmax=rng.getrandbits(16), ts=rng.getrandbits(32),
                     route=rng.getrandbits(64), reserved=rng.getrandbits(32))


def p4_header_fields(text: str, header: str) -> list[tuple[str, int]]:
    """(name, bits) of `header NAME { bit<N> field; ... }` in P4 source, comments removed."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    body = re.search(rf"\bheader\s+{header}\s*\{{(.*?)\}}", text, re.S)
    assert body, f"header {header} not found"
    fields = []
    for decl in body.group(1).split(";"):
        if decl.strip():
            m = re.fullmatch(r"\s*bit\s*<\s*(\d+)\s*>\s+(\w+)\s*", decl)
            assert m, f"unexpected declaration in {header}: {decl.strip()!r}"
            fields.append((m.group(2), int(m.group(1))))
    return fields


def test_layer_is_40_bytes_in_design_order():
    assert sum(bits for _n, bits in FIELDS) == HEADER_LEN * 8
    assert [n for n, _b in FIELDS] == [
        "version", "type", "flags", "ev", "conn", "psn", "ack", "offset", "length", "qmax",
        "ts", "route", "reserved"]
    assert len(MrcHeader().pack()) == HEADER_LEN == len(MRC())
    assert TYPE_NAMES == {t.value: t.name for t in MsgType}
    assert [FLAG_NAMES.index(f.name) for f in Flag] == [f.value.bit_length() - 1 for f in Flag]


def test_headers_p4_mrc_t_matches_the_scapy_layer():
    p4 = p4_header_fields(HEADERS_P4.read_text(), "mrc_t")
    assert [(P4_NAMES.get(n, n), bits) for n, bits in p4] == FIELDS


def test_p4_parser_sees_a_changed_width():
    text = HEADERS_P4.read_text().replace("bit<16> qmax;", "bit<8>  qmax;")
    assert ("qmax", 8) in p4_header_fields(text, "mrc_t")


def test_pack_unpack_and_scapy_agree_on_random_headers():
    rng = random.Random(7)
    for _ in range(300):
        hdr = random_header(rng)
        raw = hdr.pack()
        assert MrcHeader.unpack(raw) == hdr
        layer = MRC(raw)
        for name, _bits in FIELDS:
            assert int(getattr(layer, name)) == getattr(hdr, name), name  # attribute reads
        assert bytes(MRC(**{n: getattr(hdr, n) for n, _b in FIELDS})) == raw


def test_scapy_built_random_headers_unpack_with_the_codec():
    rng = random.Random(11)
    for _ in range(300):
        values = {n: rng.getrandbits(b) for n, b in FIELDS if n not in ("version", "type")}
        values["type"] = rng.randrange(5)
        hdr = MrcHeader.unpack(bytes(MRC(**values)))
        assert {n: getattr(hdr, n) for n in values} == values and hdr.version == 1


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


def test_sacked_psns():
    assert sacked_psns(10, 0b11 | 1 << 9 | 1 << 31) == [11, 12, 20, 42]
    assert sacked_psns(10, 0) == []
    assert sacked_psns(10, 0xFFFFFFFF) == list(range(11, 43))  # every bit, in order
    assert sacked_psns(10, 1 << 40 | 1) == [11]  # only the field's 32 bits count
