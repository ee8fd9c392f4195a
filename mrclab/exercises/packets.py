"""Test packets for the P4 exercises' property checks: Ethernet / IPv4 / UDP (or TCP) / MRC
frames with right checksums, built from fields, and the fields of a frame by name (to say
which one differs, not what it should be). Layout as in the design's wire format and
p4src/headers.p4; the STF files of the exercises use the same frames."""

from __future__ import annotations

import struct
from collections.abc import Iterator

ETH = bytes.fromhex("000000000101" "000000000201" "0800")
ETH_LEN, IPV4_LEN, UDP_LEN, MRC_LEN, TCP_LEN = 14, 20, 8, 40, 20
MRC_PORT = 4793
PAYLOAD = bytes(range(0xA0, 0xB0))
DATA, ACK, NACK, PROBE, PROBE_REPLY = range(5)
TYPE_NAMES = ("DATA", "ACK", "NACK", "PROBE", "PROBE_REPLY")
TRIMMED, ECN_ECHO, LAST, RETX = 0x01, 0x02, 0x04, 0x08
NOT_ECT, ECT1, ECT0, CE = range(4)

# (name, byte offset in the frame, bytes) of the fields a check may name
FIELDS = (
    ("IPv4 dscp/ecn", 15, 1), ("IPv4 totalLen", 16, 2), ("IPv4 ttl", 22, 1),
    ("IPv4 checksum", 24, 2), ("UDP length", 38, 2), ("UDP checksum", 40, 2),
    ("MRC version/type", 42, 1), ("MRC flags", 43, 1), ("MRC ev", 44, 2),
    ("MRC qmax", 64, 2), ("MRC route", 70, 8),
)


def ones_sum(data: bytes) -> int:
    """The 16-bit ones' complement sum of `data` (padded to an even length)."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def ipv4_header(src: int, dst: int, proto: int, l4_len: int, ecn: int = ECT0, ttl: int = 64,
                ident: int = 1, dscp: int = 0) -> bytes:
    head = struct.pack("!BBHHHBBHII", 0x45, dscp << 2 | ecn, IPV4_LEN + l4_len, ident, 0x4000,
                       ttl, proto, 0, src, dst)
    return head[:10] + struct.pack("!H", ~ones_sum(head) & 0xFFFF) + head[12:]


def mrc_header(msg_type: int = DATA, flags: int = 0, ev: int = 0x1234, conn: int = 7,
               psn: int = 0x10, ack: int = 0, offset: int = 0x1000, length: int = 16,
               qmax: int = 0, ts: int = 0xABCDEF, route: int = 0) -> bytes:
    return struct.pack("!BBHIIIIHHIQI", 0x10 | msg_type, flags, ev, conn, psn, ack, offset,
                       length, qmax, ts, route, 0)


def udp_frame(l4_payload: bytes, src: int = 0x0A000201, dst: int = 0x0A000101,
              sport: int = 0xC000, dport: int = MRC_PORT, ecn: int = ECT0, ttl: int = 64,
              ident: int = 1, checksum: bool | int = True) -> bytes:
    """Ethernet + IPv4 + UDP carrying `l4_payload`. `checksum`: True computes it, False
    sends 0 ("none"), an int forces that value by changing the payload's last two bytes
    (the payload must end in two bytes that may change: PAYLOAD does)."""
    length = UDP_LEN + len(l4_payload)
    ip = ipv4_header(src, dst, 17, length, ecn=ecn, ttl=ttl, ident=ident)
    pseudo = struct.pack("!IIBBH", src, dst, 0, 17, length)

    def csum(body: bytes) -> int:
        value = ~ones_sum(pseudo + struct.pack("!HHHH", sport, dport, length, 0) + body) & 0xFFFF
        return value or 0xFFFF

    if isinstance(checksum, bool):
        value = csum(l4_payload) if checksum else 0
    else:
        # the sum over everything but the last word, then the word that gives `checksum`
        head = l4_payload[:-2]
        partial = ones_sum(pseudo + struct.pack("!HHHH", sport, dport, length, 0) + head)
        # the ones' sum the whole must reach (a sum of 0xFFFF computes to 0, sent as 0xFFFF)
        want = (~checksum & 0xFFFF) or 0xFFFF
        word = (want - partial) % 0xFFFF
        l4_payload = head + struct.pack("!H", word)
        value = checksum
        assert checksum and csum(l4_payload) == checksum, "no payload gives that checksum"
    return ETH + ip + struct.pack("!HHHH", sport, dport, length, value) + l4_payload


def mrc_frame(payload: bytes = PAYLOAD, *, ecn: int = ECT0, sport: int = 0xC000,
              dport: int = MRC_PORT, checksum: bool | int = True, src: int = 0x0A000201,
              dst: int = 0x0A000101, ttl: int = 64, ident: int = 1, **mrc: int) -> bytes:
    """An MRC frame; `mrc`: header fields (msg_type, flags, ev, qmax, route, ...)."""
    return udp_frame(mrc_header(**mrc) + payload, src=src, dst=dst, sport=sport, dport=dport,
                     ecn=ecn, ttl=ttl, ident=ident, checksum=checksum)


def tcp_frame(payload: bytes = PAYLOAD, src: int = 0x0A000201, dst: int = 0x0A000101,
              sport: int = 40000, dport: int = 80, ecn: int = ECT0) -> bytes:
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x10, 1024, 0, 0) + payload
    return ETH + ipv4_header(src, dst, 6, len(tcp), ecn=ecn) + tcp


def fields(frame: bytes) -> Iterator[tuple[str, bytes]]:
    for name, at, size in FIELDS:
        yield name, frame[at:at + size]


def first_difference(got: bytes, want: bytes) -> str:
    """Which named fields of `got` differ from `want` ('' when none does), with their
    values: never the values wanted."""
    if len(got) != len(want):
        return f"it is {len(got)} bytes long (the frame, not the expected length)"
    named = [f"its {name} is 0x{a.hex().upper()}"
             for (name, a), (_, b) in zip(fields(got), fields(want), strict=True) if a != b]
    if named:
        return " and ".join(named)
    n = next((i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b), None)
    return "" if n is None else f"it differs from byte {n} on (0x{got[n:n + 8].hex().upper()}...)"


def describe(frame: bytes) -> str:
    """One line for a test frame: the type and the fields the exercises care about."""
    if len(frame) < ETH_LEN + IPV4_LEN:
        return f"a {len(frame)}-byte frame"
    ecn = ("Not-ECT", "ECT(1)", "ECT(0)", "CE")[frame[15] & 3]
    proto = frame[23]
    if proto == 6:
        return f"TCP, {ecn}"
    sport, dport, _, csum = struct.unpack("!HHHH", frame[34:42])
    if MRC_PORT not in (sport, dport) or len(frame) < ETH_LEN + IPV4_LEN + UDP_LEN + MRC_LEN:
        return f"plain UDP {sport}->{dport}, {ecn}, UDP checksum 0x{csum:04X}"
    kind = TYPE_NAMES[frame[42] & 0xF] if frame[42] & 0xF < 5 else f"type {frame[42] & 0xF}"
    flags = frame[43]
    ev, = struct.unpack("!H", frame[44:46])
    qmax, = struct.unpack("!H", frame[64:66])
    route, = struct.unpack("!Q", frame[70:78])
    return (f"MRC {kind} (flags 0x{flags:02X}, ev 0x{ev:04X}, qmax {qmax}, route "
            f"{route:016X}), {ecn}, UDP checksum 0x{csum:04X}, ports {sport}->{dport}")
