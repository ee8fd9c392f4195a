"""The P4 exercises' property checks (`mrclab.exercises.p4_properties`): seeded random
packet sequences in every mode and for every packet type, with edge values of the fields
each exercise writes (evs, routes, queue depths, qmax, checksums that carry when folded),
run on the student's program and on the reference. Fixed seeds: the same cases every run,
so a failure shows the same input again."""

from __future__ import annotations

import random
import struct

from mrclab.exercises.p4_properties import Case, Sent, check
from mrclab.exercises.packets import (
    ACK,
    CE,
    DATA,
    ECT0,
    ECT1,
    LAST,
    NACK,
    NOT_ECT,
    PAYLOAD,
    PROBE,
    PROBE_REPLY,
    RETX,
    TRIMMED,
    mrc_frame,
    ones_sum,
    tcp_frame,
    udp_frame,
)
from mrclab.exercises.workspace import Workspace

CASES, PACKETS = 24, 12
MODES = {0: "ecmp", 1: "ev", 2: "random", 3: "source"}
MRC_TYPES = (DATA, ACK, NACK, PROBE, PROBE_REPLY)
EDGE_EVS = (0x0000, 0xFFFF, 0x8000, 0x00FF, 0x0100, 0x0001)
UPLINK = """act_prof_create_member MrcIngress.uplink_selector MrcIngress.forward(port:1)
act_prof_create_member MrcIngress.uplink_selector MrcIngress.forward(port:2)
act_prof_create_member MrcIngress.uplink_selector MrcIngress.forward(port:3)
act_prof_create_member MrcIngress.uplink_selector MrcIngress.forward(port:4)
act_prof_create_group MrcIngress.uplink_selector
act_prof_add_member_to_group MrcIngress.uplink_selector 0 0
act_prof_add_member_to_group MrcIngress.uplink_selector 1 0
act_prof_add_member_to_group MrcIngress.uplink_selector 2 0
act_prof_add_member_to_group MrcIngress.uplink_selector 3 0
table_indirect_add_with_group MrcIngress.uplink hdr.ipv4.dstAddr:0x0a0001** => 0
add MrcIngress.downlink hdr.ipv4.dstAddr:0x0a0003** MrcIngress.forward(port:5)
"""
LABELS = {0x01: 1, 0x02: 2, 0x03: 3, 0x04: 4, 0x05: 4, 0x07: 6, 0x11: 5, 0x2A: 7, 0xFF: 8}
LABEL_TABLE = "".join(f"add MrcIngress.source_label meta.label:0x{label:02x} "
                      f"MrcIngress.forward(port:{port})\n" for label, port in LABELS.items())


def _mode_line(mode: int, salt: int = 0) -> str:
    return f"setdefault MrcIngress.spray_config MrcIngress.set_spray_mode(mode:{mode}, salt:{salt})\n"


def _mode_name(mode: int) -> str:
    return f"{MODES.get(mode, 'unknown')} mode ({mode})"


def _ev(rng: random.Random) -> int:
    return rng.choice(EDGE_EVS) if rng.random() < 0.3 else rng.randrange(1 << 16)


def _addr(rng: random.Random, net: int) -> int:
    return 0x0A000000 | net << 8 | rng.randrange(1, 255)


def _any_packet(rng: random.Random, dst_net: int = 1, route: int = 0, **mrc: int) -> bytes:
    """An MRC packet of any type (mostly), or plain UDP or TCP, to 10.0.dst_net.x."""
    src, dst = _addr(rng, 2), _addr(rng, dst_net)
    kind = rng.random()
    if kind < 0.1:
        return udp_frame(PAYLOAD, src=src, dst=dst, sport=rng.randrange(1024, 65536),
                         dport=rng.choice((53, 6000, 4792, 4794)))
    if kind < 0.17:
        return tcp_frame(src=src, dst=dst, sport=rng.randrange(1024, 65536))
    sport, dport = rng.randrange(1024, 65536), 4793
    if rng.random() < 0.2:  # a reply from the MRC port
        sport, dport = 4793, rng.randrange(1024, 65536)
    fields = {"msg_type": rng.choice(MRC_TYPES), "ev": _ev(rng), "route": route,
              "psn": rng.randrange(1 << 32)} | mrc
    return mrc_frame(src=src, dst=dst, sport=sport, dport=dport, **fields)


# ------------------------------------------------------------------------------------ spray
def _spray_cases(rng: random.Random) -> list[Case]:
    cases = []
    modes = [0, 1, 3] * 6 + [rng.choice((4, 5, 7, 0x80, 0xFF)) for _ in range(6)]
    for mode in modes:
        salt = rng.choice((0, 0, rng.randrange(1, 1 << 32)))
        packets = []
        for _ in range(PACKETS):
            route = 0
            if mode == 3 and rng.random() < 0.2:
                route = rng.choice(tuple(LABELS)) << 56
            packets.append(Sent(9, _any_packet(rng, rng.choice((1, 1, 1, 3)), route=route)))
        cases.append(Case(f"{_mode_name(mode)}, salt {salt:#x}, a 4-way uplink group",
                          _mode_line(mode, salt) + UPLINK + LABEL_TABLE, packets))
    return cases


def spray_property(ws: Workspace, target: str) -> tuple[bool, str]:
    return check(ws, _spray_cases, seed=11)


# ----------------------------------------------------------------------------------- source
def _route(rng: random.Random) -> int:
    """A route word: known labels, now and then an unknown one or a 0 among them."""
    n = rng.randrange(1, 9)
    labels = [rng.choice(tuple(LABELS)) for _ in range(n)]
    roll = rng.random()
    if roll < 0.1:
        labels[rng.randrange(n)] = rng.choice((0x09, 0x77, 0xFE))  # no entry
    elif roll < 0.15:
        labels[0] = 0  # a top label of 0 with labels after it
    labels += [0] * (8 - n)
    return int.from_bytes(bytes(labels), "big")


def _update(checksum: int, rest: int) -> tuple[bool, int]:
    """RFC 1624 as the exercises do it: ~checksum + rest (the other words' sum), folded
    twice, complemented; whether the first fold carried, and the result."""
    total = (~checksum & 0xFFFF) + rest
    first = (total & 0xFFFF) + (total >> 16)
    return first > 0xFFFF, ~((first & 0xFFFF) + (first >> 16)) & 0xFFFF


def edge_checksum(rng: random.Random, rest: int) -> int | None:
    """A checksum (not 0) whose update with `rest` carries out of the first fold (what a
    single fold gets wrong) or computes to 0 (sent as 0xFFFF); None when there is none."""
    want_zero = rng.random() < 0.4
    start = rng.choice((rest & 0xFFFF, rest % 0xFFFF))
    for c in ((start + d) & 0xFFFF for d in range(-2, 3)):
        carry, value = _update(c, rest)
        if c and ((value == 0) if want_zero else (carry and value)):
            return c
    return None


def _route_rest(route: int) -> int:
    old = struct.unpack("!4H", route.to_bytes(8, "big"))
    new = struct.unpack("!4H", ((route << 8) & (1 << 64) - 1).to_bytes(8, "big"))
    return sum(~w & 0xFFFF for w in old) + sum(new)


def _source_packet(rng: random.Random) -> bytes:
    route = _route(rng) if rng.random() < 0.85 else 0
    roll = rng.random()
    checksum: bool | int = True
    if roll < 0.15:
        checksum = False
    elif roll < 0.5 and route:
        checksum = edge_checksum(rng, _route_rest(route)) or True
    elif roll < 0.55:
        checksum = rng.choice((0xFFFF, 0x0001, 0xFFFE))
    if rng.random() < 0.1:
        return udp_frame(PAYLOAD, src=_addr(rng, 2), dst=_addr(rng, 1), dport=6000)
    return mrc_frame(msg_type=rng.choice(MRC_TYPES), route=route, ev=_ev(rng),
                     psn=rng.randrange(1 << 32), checksum=checksum, dst=_addr(rng, 1))


def _source_cases(rng: random.Random) -> list[Case]:
    setup = UPLINK.replace("0x0a0001** => 0", "0x0a0004** => 0") + \
        "add MrcIngress.downlink hdr.ipv4.dstAddr:0x0a0001** MrcIngress.forward(port:9)\n" + \
        LABEL_TABLE
    cases = []
    for mode in [3] * 16 + [0, 1, 2, 2, 4, 7, 0x80, 0xFF]:
        packets = []
        for _ in range(PACKETS):
            frame = _source_packet(rng)
            packets.append(Sent(10, frame))
            if mode == 3 and rng.random() < 0.3:
                # the next hop: what this switch sent comes in again, up to the route's end
                packets += [Sent(10, again=True) for _ in range(rng.randrange(1, 9))]
        cases.append(Case(f"{_mode_name(mode)}, labels {sorted(f'{x:02x}' for x in LABELS)} "
                          "in source_label, 10.0.1.0/24 on downlink port 9",
                          _mode_line(mode) + setup, packets))
    return cases


def source_property(ws: Workspace, target: str) -> tuple[bool, str]:
    return check(ws, _source_cases, seed=23)


# ------------------------------------------------------------------------------------- trim
THRESHOLDS = """add MrcIngress.downlink hdr.ipv4.dstAddr:0x0a0001** MrcIngress.forward(port:1)
add MrcIngress.downlink hdr.ipv4.dstAddr:0x0a0003** MrcIngress.forward(port:3)
add MrcIngress.port_thresholds standard_metadata.egress_spec:1 MrcIngress.set_thresholds(trim_threshold:{trim}, ecn_threshold:{ecn})
register_write queue_depth_est 1 {est}
register_write queue_depth_est 3 {est}
"""


def _queued_packet(rng: random.Random, trim: int) -> bytes:
    """A packet for the trim and signals cases: mostly MRC DATA of any flags, then the
    other types, headers trimmed upstream, plain UDP and TCP."""
    net = rng.choice((1, 1, 1, 3))
    ecn = rng.choice((NOT_ECT, ECT1, ECT0, ECT0, CE))
    roll = rng.random()
    src, dst = _addr(rng, 2), _addr(rng, net)
    if roll < 0.08:
        return udp_frame(PAYLOAD, src=src, dst=dst, dport=6000, ecn=ecn,
                         checksum=rng.random() < 0.7)
    if roll < 0.14:
        return tcp_frame(src=src, dst=dst, ecn=ecn)
    qmax = rng.choice((0, 3, trim, trim + 1, 0x2000, 0xFFFE, 0xFFFF, rng.randrange(1 << 16)))
    if roll < 0.24:  # trimmed upstream: 82 bytes, TRIMMED, no UDP checksum
        frame = mrc_frame(b"", flags=TRIMMED, qmax=qmax, ecn=ecn, src=src, dst=dst,
                          checksum=False, length=1024)
        return frame
    msg_type = DATA if roll < 0.7 else rng.choice(MRC_TYPES[1:])
    flags = rng.choice((0, 0, LAST, RETX, LAST | RETX, 0x02))
    checksum: bool | int = True
    if rng.random() < 0.2:
        checksum = rng.choice((False, 1, 2, 3, 0xFFFF))
    return mrc_frame(msg_type=msg_type, flags=flags, qmax=qmax, ecn=ecn, src=src, dst=dst,
                     checksum=checksum, ev=_ev(rng), psn=rng.randrange(1 << 32))


def _depth(rng: random.Random, *edges: int) -> int:
    return rng.choice((0, 0, *edges, rng.randrange(64)))


def _trim_cases(rng: random.Random) -> list[Case]:
    cases = []
    for _ in range(CASES):
        trim = rng.randrange(1, 20)
        ecn = rng.choice((100000, trim // 2, trim, 0))
        est = rng.choice((0, trim - 1, trim, trim + 5, 60))
        packets = [Sent(2, _queued_packet(rng, trim),
                        _depth(rng, trim - 1, trim, 2 * trim, 20)) for _ in range(PACKETS)]
        cases.append(Case(f"port 1 trims at an estimate >= {trim}, ECN threshold {ecn}, "
                          f"estimate {est} at the start; port 3 without thresholds",
                          THRESHOLDS.format(trim=trim, ecn=ecn, est=est), packets))
    return cases


def trim_property(ws: Workspace, target: str) -> tuple[bool, str]:
    return check(ws, _trim_cases, seed=37)


# ---------------------------------------------------------------------------------- signals
def _ipv4_checksum_carry(frame: bytes) -> bytes:
    """`frame` (ECT) with an identification that makes marking it CE carry out of the
    first fold of the IPv4 checksum update: ~checksum + ~old word + new word is 0x1FFFF
    when the checksum after this hop's TTL decrement is (CE - ecn) - 1."""
    rise = CE - (frame[15] & 3)
    head = bytearray(frame[14:34])
    head[8] -= 1  # the header as it leaves ingress
    head[10:12] = b"\0\0"
    head[4:6] = b"\0\0"
    want = 0xFFFF - (rise - 1)  # the header's ones' sum that gives that checksum
    head[4:6] = struct.pack("!H", (want - ones_sum(bytes(head))) % 0xFFFF)
    head[8] += 1
    head[10:12] = struct.pack("!H", ~ones_sum(bytes(head)) & 0xFFFF)
    return frame[:14] + bytes(head) + frame[34:]


def _signals_cases(rng: random.Random) -> list[Case]:
    cases = []
    for _ in range(CASES):
        trim = rng.randrange(1, 40)
        ecn = rng.choice((0, 1, 4, trim, 100000))
        est = rng.choice((0, trim - 1, trim, trim + 20))
        packets = []
        for _ in range(PACKETS):
            depth = _depth(rng, ecn - 1 if ecn else 0, ecn, 7, 0xFFFF, 0x10000, 70000,
                           (1 << 19) - 1)
            if rng.random() < 0.25:  # qmax raised, its checksum update at an edge
                qmax = rng.randrange(min(depth, 0xFFFF) + 1)
                rest = (~qmax & 0xFFFF) + min(depth, 0xFFFF)
                frame = mrc_frame(msg_type=rng.choice((DATA, PROBE)), qmax=qmax,
                                  ecn=rng.choice((NOT_ECT, ECT0)), dst=_addr(rng, 1),
                                  checksum=edge_checksum(rng, rest) or True)
            else:
                frame = _queued_packet(rng, trim)
            if rng.random() < 0.2 and frame[15] & 3 in (ECT0, ECT1):
                frame = _ipv4_checksum_carry(frame)
            packets.append(Sent(2, frame, depth))
        cases.append(Case(f"port 1 trims at an estimate >= {trim} and marks at a depth >= "
                          f"{ecn}, estimate {est} at the start; port 3 without thresholds",
                          THRESHOLDS.format(trim=trim, ecn=ecn, est=est), packets))
    return cases


def signals_property(ws: Workspace, target: str) -> tuple[bool, str]:
    return check(ws, _signals_cases, seed=41)

