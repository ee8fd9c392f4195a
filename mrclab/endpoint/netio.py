"""Layer-2 framing for MRC: Ethernet/IPv4/UDP frames built and parsed here, never by the
kernel's UDP stack; they go out and come in on AF_PACKET sockets (`rawsocket`). Pure: the
simulator's hosts use it too, compiled with the rest of the per-packet path
(`mrclab.endpoint.compiled`)."""

from __future__ import annotations

import ipaddress
import logging
import struct
from typing import Final

from mrclab.endpoint.wire import (
    ETH_IP_UDP_LEN,
    HEADER_LEN,
    MRC_UDP_PORT,
    MalformedPacket,
    MrcHeader,
)

log = logging.getLogger(__name__)

ETH_P_IP: Final = 0x0800
ECT0: Final = 0x02
CE: Final = 0x03
_ETH: Final = struct.Struct("!6s6sH")
_IP: Final = struct.Struct("!BBHHHBBH4s4s")
_UDP: Final = struct.Struct("!HHHH")
_ETH_IP: Final = struct.Struct(_ETH.format + _IP.format[1:])  # a frame's start, unpacked at once
_IP_UDP: Final = struct.Struct(_IP.format + _UDP.format[1:])  # packed at once


def _word_sum(data: bytes) -> int:
    """The sum of `data`'s 16-bit big-endian words."""
    return sum(struct.unpack(f"!{len(data) // 2}H", data))


def _checksum(total: int) -> int:
    """The Internet checksum of words whose sum is `total`: the one's complement of their
    one's-complement sum (carries folded back in)."""
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ip_checksum(header: bytes) -> int:
    return _checksum(_word_sum(header))


def mac_bytes(mac: str) -> bytes:
    parts = mac.split(":")
    if len(parts) != 6:
        raise ValueError(f"bad MAC address {mac!r}")
    return bytes(int(p, 16) for p in parts)


def mac_str(raw: bytes) -> str:
    return ":".join(f"{b:02x}" for b in raw)


class FrameAddress:
    """Both ends of one MRC flow at layer 2 and 3; immutable, a dict key.

    A plain class rather than a frozen dataclass: mypyc compiles its `__init__`,
    `__eq__` and `__hash__` (a dataclass's are generated at import and run interpreted),
    and every frame received makes one and looks it up."""

    __slots__ = ("src_mac", "dst_mac", "src_ip", "dst_ip")

    def __init__(self, src_mac: bytes, dst_mac: bytes, src_ip: bytes, dst_ip: bytes) -> None:
        self.src_mac: Final = src_mac
        self.dst_mac: Final = dst_mac
        self.src_ip: Final = src_ip
        self.dst_ip: Final = dst_ip

    @classmethod
    def of(cls, src_mac: str, dst_mac: str, src_ip: str, dst_ip: str) -> FrameAddress:
        return cls(mac_bytes(src_mac), mac_bytes(dst_mac),
                   ipaddress.IPv4Address(src_ip).packed, ipaddress.IPv4Address(dst_ip).packed)

    def reversed(self) -> FrameAddress:
        return FrameAddress(self.dst_mac, self.src_mac, self.dst_ip, self.src_ip)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FrameAddress):
            return NotImplemented
        return (self.src_mac == other.src_mac and self.dst_mac == other.dst_mac
                and self.src_ip == other.src_ip and self.dst_ip == other.dst_ip)

    def __hash__(self) -> int:
        return hash((self.src_mac, self.dst_mac, self.src_ip, self.dst_ip))

    def __repr__(self) -> str:
        return (f"FrameAddress(src_mac={self.src_mac!r}, dst_mac={self.dst_mac!r}, "
                f"src_ip={self.src_ip!r}, dst_ip={self.dst_ip!r})")


class FrameBuilder:
    """Builds Ethernet/IPv4/UDP/MRC frames for one address pair (UDP checksum 0, IPv4)."""

    def __init__(self, addr: FrameAddress) -> None:
        self.addr = addr
        self._eth = _ETH.pack(addr.dst_mac, addr.src_mac, ETH_P_IP)
        self._ip_id = 0
        # The checksum sums the IPv4 header's words: those of its fields that are the same
        # in every frame (its words with tos, length, id and checksum 0) are added up
        # once; each frame adds its tos (the low byte of the first word), length and id.
        self._ip_sum = _word_sum(self._ip_udp(0, 0, 0, 0, 0)[:_IP.size])

    def _ip_udp(self, tos: int, total: int, ip_id: int, csum: int, udp_len: int) -> bytes:
        """The IPv4 and UDP headers of a frame."""
        return _IP_UDP.pack(0x45, tos, total, ip_id, 0x4000, 64, 17, csum, self.addr.src_ip,
                            self.addr.dst_ip, MRC_UDP_PORT, MRC_UDP_PORT, udp_len, 0)

    def build(self, header: MrcHeader, payload: bytes | memoryview = b"",
              tos: int = 0) -> bytes:
        udp_len = 8 + HEADER_LEN + len(payload)
        total = _IP.size + udp_len
        ip_id = self._ip_id = (self._ip_id + 1) & 0xFFFF
        csum = _checksum(self._ip_sum + tos + total + ip_id)
        return b"".join((self._eth, self._ip_udp(tos, total, ip_id, csum, udp_len),
                         header.pack(), payload))


class ParsedFrame:
    """One frame received (a plain class: one per frame, see `FrameAddress`)."""

    __slots__ = ("addr", "tos", "header", "payload")

    def __init__(self, addr: FrameAddress, tos: int, header: MrcHeader,
                 payload: bytes | memoryview) -> None:
        self.addr = addr  # as seen on the wire: src = the peer
        self.tos = tos
        self.header = header
        # a memoryview (an attribute of that type alone: mypyc fails)
        self.payload = payload

    @property
    def ce(self) -> bool:
        return self.tos & 0x3 == CE

    @property
    def peer_ip(self) -> str:
        return ip_text(self.addr.src_ip)


_IP_TEXTS: Final[dict[bytes, str]] = {}  # packed IPv4 address -> its dotted quad
_IP_TEXTS_KEPT: Final = 4096


def ip_text(raw: bytes) -> str:
    """Dotted quad of a packed IPv4 address (a receiver names each packet's peer: the
    ipaddress module took a tenth of its time). Remembered in a dict (an lru_cache's
    wrapper cost 70 % more per call), forgotten all at once when too many (a lab host
    hears from a few peers)."""
    text = _IP_TEXTS.get(raw)
    if text is None:
        if len(_IP_TEXTS) >= _IP_TEXTS_KEPT:
            _IP_TEXTS.clear()
        text = _IP_TEXTS[raw] = str(ipaddress.IPv4Address(raw))
    return text


def parse_frame(frame: bytes) -> ParsedFrame:
    """Dissect one frame; MalformedPacket for anything that is not a sane MRC packet."""
    if len(frame) < ETH_IP_UDP_LEN + HEADER_LEN:
        raise MalformedPacket(f"short frame: {len(frame)} bytes")
    # the fields typed, so that mypyc compiles the checks below to plain C
    eth_ip: tuple[bytes, bytes, int, int, int, int, int, int, int, int, int, bytes, bytes] = (
        _ETH_IP.unpack_from(frame, 0))
    (dst_mac, src_mac, ethertype, vihl, tos, total, _id, frag, _ttl, proto, _csum, src_ip,
     dst_ip) = eth_ip
    if ethertype != ETH_P_IP:
        raise MalformedPacket(f"ethertype 0x{ethertype:04x}")
    ihl = (vihl & 0xF) * 4
    if vihl >> 4 != 4 or ihl < 20 or proto != 17 or frag & 0x3FFF:
        raise MalformedPacket("not an unfragmented IPv4/UDP packet")
    if total > len(frame) - 14 or total < ihl + 8 + HEADER_LEN:
        raise MalformedPacket(f"bad IPv4 total length {total}")
    udp_off = 14 + ihl
    udp: tuple[int, int, int, int] = _UDP.unpack_from(frame, udp_off)
    sport, dport, udp_len, _ = udp
    if MRC_UDP_PORT not in (sport, dport):
        raise MalformedPacket(f"UDP ports {sport}->{dport}")
    if udp_len != total - ihl:
        raise MalformedPacket(f"UDP length {udp_len} disagrees with IPv4 length {total}")
    header = MrcHeader.unpack(frame, udp_off + 8)
    start, end = udp_off + 8 + HEADER_LEN, 14 + total
    # a view, not a copy, of a DATA's payload; half the frames (ACKs, NACKs) carry none
    payload = memoryview(frame)[start:end] if end > start else b""
    return ParsedFrame(FrameAddress(src_mac, dst_mac, src_ip, dst_ip), tos, header, payload)
