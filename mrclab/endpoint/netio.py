"""Layer-2 framing for MRC: Ethernet/IPv4/UDP frames built and parsed here, never by the
kernel's UDP stack; they go out and come in on AF_PACKET sockets (`rawsocket`). Pure: the
simulator's hosts use it too, compiled with the rest of the per-packet path
(`mrclab.endpoint.compiled`)."""

from __future__ import annotations

import functools
import ipaddress
import logging
import struct
from dataclasses import dataclass

from mrclab.endpoint.wire import (
    ETH_IP_UDP_LEN,
    HEADER_LEN,
    MRC_UDP_PORT,
    MalformedPacket,
    MrcHeader,
)

log = logging.getLogger(__name__)

ETH_P_IP = 0x0800
ECT0 = 0x02
CE = 0x03
_ETH = struct.Struct("!6s6sH")
_IP = struct.Struct("!BBHHHBBH4s4s")
_UDP = struct.Struct("!HHHH")

def ip_checksum(header: bytes) -> int:
    total = sum(struct.unpack(f"!{len(header) // 2}H", header))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def mac_bytes(mac: str) -> bytes:
    parts = mac.split(":")
    if len(parts) != 6:
        raise ValueError(f"bad MAC address {mac!r}")
    return bytes(int(p, 16) for p in parts)


def mac_str(raw: bytes) -> str:
    return ":".join(f"{b:02x}" for b in raw)


@dataclass(slots=True, frozen=True)
class FrameAddress:
    """Both ends of one MRC flow at layer 2 and 3."""

    src_mac: bytes
    dst_mac: bytes
    src_ip: bytes
    dst_ip: bytes

    @classmethod
    def of(cls, src_mac: str, dst_mac: str, src_ip: str, dst_ip: str) -> FrameAddress:
        return cls(mac_bytes(src_mac), mac_bytes(dst_mac),
                   ipaddress.IPv4Address(src_ip).packed, ipaddress.IPv4Address(dst_ip).packed)

    def reversed(self) -> FrameAddress:
        return FrameAddress(self.dst_mac, self.src_mac, self.dst_ip, self.src_ip)


class FrameBuilder:
    """Builds Ethernet/IPv4/UDP/MRC frames for one address pair (UDP checksum 0, IPv4)."""

    def __init__(self, addr: FrameAddress) -> None:
        self.addr = addr
        self._eth = _ETH.pack(addr.dst_mac, addr.src_mac, ETH_P_IP)
        self._ip_id = 0

    def build(self, header: MrcHeader, payload: bytes | memoryview = b"",
              tos: int = 0) -> bytes:
        udp_len = 8 + HEADER_LEN + len(payload)
        self._ip_id = (self._ip_id + 1) & 0xFFFF
        ip = _IP.pack(0x45, tos, 20 + udp_len, self._ip_id, 0x4000, 64, 17, 0,
                      self.addr.src_ip, self.addr.dst_ip)
        csum = ip_checksum(ip)
        ip = ip[:10] + csum.to_bytes(2, "big") + ip[12:]
        udp = _UDP.pack(MRC_UDP_PORT, MRC_UDP_PORT, udp_len, 0)
        return b"".join((self._eth, ip, udp, header.pack(), payload))


@dataclass(slots=True)
class ParsedFrame:
    addr: FrameAddress  # as seen on the wire: src = the peer
    tos: int
    header: MrcHeader
    payload: bytes | memoryview  # a memoryview (a field of that type alone: mypyc fails)

    @property
    def ce(self) -> bool:
        return self.tos & 0x3 == CE

    @property
    def peer_ip(self) -> str:
        return ip_text(self.addr.src_ip)


@functools.lru_cache(maxsize=4096)
def ip_text(raw: bytes) -> str:
    """Dotted quad of a packed IPv4 address (a receiver names each packet's peer: the
    ipaddress module took a tenth of its time)."""
    return str(ipaddress.IPv4Address(raw))


def parse_frame(frame: bytes) -> ParsedFrame:
    """Dissect one frame; MalformedPacket for anything that is not a sane MRC packet."""
    if len(frame) < ETH_IP_UDP_LEN + HEADER_LEN:
        raise MalformedPacket(f"short frame: {len(frame)} bytes")
    dst_mac, src_mac, ethertype = _ETH.unpack_from(frame, 0)
    if ethertype != ETH_P_IP:
        raise MalformedPacket(f"ethertype 0x{ethertype:04x}")
    vihl, tos, total, _id, frag, _ttl, proto, _csum, src_ip, dst_ip = _IP.unpack_from(frame, 14)
    ihl = (vihl & 0xF) * 4
    if vihl >> 4 != 4 or ihl < 20 or proto != 17 or frag & 0x3FFF:
        raise MalformedPacket("not an unfragmented IPv4/UDP packet")
    if total > len(frame) - 14 or total < ihl + 8 + HEADER_LEN:
        raise MalformedPacket(f"bad IPv4 total length {total}")
    udp_off = 14 + ihl
    sport, dport, udp_len, _ = _UDP.unpack_from(frame, udp_off)
    if MRC_UDP_PORT not in (sport, dport):
        raise MalformedPacket(f"UDP ports {sport}->{dport}")
    if udp_len != total - ihl:
        raise MalformedPacket(f"UDP length {udp_len} disagrees with IPv4 length {total}")
    header = MrcHeader.unpack(frame, udp_off + 8)
    payload = memoryview(frame)[udp_off + 8 + HEADER_LEN:14 + total]
    return ParsedFrame(FrameAddress(src_mac, dst_mac, src_ip, dst_ip), tos, header, payload)
