"""mrclab/p4src/mrc.p4 on p4emu, driven from Python: what STF cannot express (action-selector
groups, watch_port, explicit queue depths).

Expected uplink members are computed here, independently of p4emu, the way BMv2 chooses:
  crc       = CRC-32 (zlib parameters) of the packed hash fields, MSB first:
              ecmp: ipv4.src(4) ipv4.dst(4) protocol(1) l4 src port(2) l4 dst port(2)
              ev:   the same 13 bytes followed by mrc.ev(2)
  path_hash = crc when the switch's salt is 0, else the murmur3 finalizer of crc ^ salt
  selector  = CRC-16/ARC (poly 0x8005 reflected, init 0) of path_hash as 4 big-endian bytes
  member    = active members sorted by member id, index selector % len(active)
(simple_switch_grpc: members whose watch_port is down are not active).
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from .checksums import internet_checksum

ROOT = Path(__file__).resolve().parents[3]
PROGRAM = ROOT / "mrclab" / "p4src" / "mrc.p4"

UPLINK_PORTS = (11, 12, 13, 14)   # member id 100 + i forwards to UPLINK_PORTS[i]
HOST_PORT = 1
IN_PORT = 2
MRC_PORT = 4793
SPRAY = {"ecmp": 0, "ev": 1, "random": 2, "source": 3}


# ------------------------------------------------------------------ expected values
def crc16_arc(data: bytes) -> int:
    """Bitwise CRC-16/ARC, deliberately not table-driven (p4emu's is)."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def test_crc16_arc_check_value():
    assert crc16_arc(b"123456789") == 0xBB3D


def ipv4_bytes(addr: str) -> bytes:
    return bytes(int(x) for x in addr.split("."))


def fmix32(x: int) -> int:
    """murmur3's 32-bit finalizer."""
    x ^= x >> 16
    x = x * 0x85EBCA6B & 0xFFFFFFFF
    x ^= x >> 13
    x = x * 0xC2B2AE35 & 0xFFFFFFFF
    return x ^ x >> 16


def path_hash(src: str, dst: str, proto: int, sport: int, dport: int, ev: int | None = None,
              salt: int = 0) -> int:
    data = ipv4_bytes(src) + ipv4_bytes(dst) + struct.pack("!BHH", proto, sport, dport)
    if ev is not None:
        data += struct.pack("!H", ev)
    crc = zlib.crc32(data) & 0xFFFFFFFF
    return crc if salt == 0 else fmix32(crc ^ salt)


def expected_port(h: int, active_ports: tuple[int, ...]) -> int:
    return active_ports[crc16_arc(h.to_bytes(4, "big")) % len(active_ports)]


# ------------------------------------------------------------------ packets
def ipv4_header(src: str, dst: str, payload_len: int, proto: int, ttl: int = 64,
                ecn: int = 2) -> bytes:
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, ecn, 20 + payload_len, 1, 0x4000, ttl, proto, 0,
                      ipv4_bytes(src), ipv4_bytes(dst))
    return hdr[:10] + struct.pack("!H", internet_checksum(hdr)) + hdr[12:]


ETH = bytes.fromhex("000000000101" "000000000201" "0800")
PAYLOAD = bytes(range(64))


def mrc_header(mtype: int = 0, flags: int = 0, ev: int = 0x1234, qmax: int = 0,
               route: int = 0, length: int = len(PAYLOAD)) -> bytes:
    return struct.pack("!BBHIIIIHHIQI", 0x10 | mtype, flags, ev, 7, 16, 0, 0, length, qmax,
                       0xABCDEF, route, 0)


def udp_frame(src: str = "10.0.2.1", dst: str = "10.1.0.1", sport: int = 5000,
              dport: int = 6000, body: bytes = PAYLOAD, ecn: int = 2, ttl: int = 64) -> bytes:
    # UDP checksum 0 ("none"): these tests look at routing, not at L4 checksums
    udp = struct.pack("!HHHH", sport, dport, 8 + len(body), 0)
    return ETH + ipv4_header(src, dst, 8 + len(body), 17, ttl=ttl, ecn=ecn) + udp + body


def mrc_frame(src: str = "10.0.2.1", dst: str = "10.1.0.1", sport: int = 0xC000,
              ecn: int = 2, **mrc_fields) -> bytes:
    return udp_frame(src, dst, sport, MRC_PORT, mrc_header(**mrc_fields) + PAYLOAD, ecn=ecn)


def tcp_frame(src: str = "10.0.2.1", dst: str = "10.1.0.1", sport: int = 40000,
              dport: int = 80) -> bytes:
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x10, 1024, 0, 0)
    return ETH + ipv4_header(src, dst, len(tcp) + len(PAYLOAD), 6) + tcp + PAYLOAD


# offsets in a frame built above (Ethernet 14, IPv4 20, UDP 8)
IP_OFF, UDP_OFF, MRC_OFF = 14, 34, 42


# ------------------------------------------------------------------ the switch
@pytest.fixture(scope="module")
def program():
    from p4emu.frontend import compile_file

    return compile_file(str(PROGRAM)).program


class Switch:
    """One p4emu device running mrc.p4, with the fabric's uplink group installed."""

    def __init__(self, program) -> None:
        from p4emu.runtime.device import DeviceState
        from p4emu.v1model.pipeline import Pipeline

        self.down: set[int] = set()
        self.now = 0
        self.state = DeviceState.from_program(program.info, port_up=self._port_up,
                                              clock_us=lambda: self.now)
        self.pipeline = Pipeline(program, self.state)

    def _port_up(self, port: int) -> bool:
        return port not in self.down

    def action(self, name: str, *args: int):
        from p4emu.runtime.actions import ActionCall

        return ActionCall(self.state.resolve_action(name).id, tuple(args))

    def install_fabric(self) -> None:
        """Host route 10.0.1.0/24 on the downlink table; 10.0.0.0/8 over a 4-port uplink
        group whose members watch their own port."""
        from p4emu.runtime.action_profiles import GroupMember
        from p4emu.runtime.match import Lpm
        from p4emu.runtime.tables import TableEntry

        self.state.resolve_table("MrcIngress.downlink").insert(TableEntry(
            (Lpm(0x0A000100, 24),), action=self.action("MrcIngress.forward", HOST_PORT)))
        selector = self.state.resolve_action_profile("MrcIngress.uplink_selector")
        for i, port in enumerate(UPLINK_PORTS):
            selector.insert_member(100 + i, self.action("MrcIngress.forward", port))
        selector.insert_group(1, [GroupMember(100 + i, watch_port=port)
                                  for i, port in enumerate(UPLINK_PORTS)])
        self.state.resolve_table("MrcIngress.uplink").insert(
            TableEntry((Lpm(0x0A000000, 8),), group_id=1))

    def set_spray_mode(self, mode: str, salt: int = 0) -> None:
        self.state.resolve_table("MrcIngress.spray_config").set_default(
            self.action("MrcIngress.set_spray_mode", SPRAY[mode], salt))

    def send(self, frame: bytes, port: int = IN_PORT) -> list[tuple[int, bytes]]:
        self.now += 1
        return self.pipeline.process(port, frame, self.now)

    def send_one(self, frame: bytes, port: int = IN_PORT) -> tuple[int, bytes]:
        out = self.send(frame, port)
        assert len(out) == 1, out
        return out[0]

    def counter(self, name: str, index: int) -> int:
        return self.state.resolve_counter(name).read(index).packets


@pytest.fixture
def switch(program) -> Switch:
    sw = Switch(program)
    sw.install_fabric()
    return sw


# ------------------------------------------------------------------ spray modes
FLOWS = [("10.0.2.1", "10.1.0.1", 5000 + i, 6000) for i in range(16)]


def test_ecmp_member_follows_five_tuple_hash(switch):
    ports_seen = set()
    for src, dst, sport, dport in FLOWS:
        want = expected_port(path_hash(src, dst, 17, sport, dport), UPLINK_PORTS)
        for _ in range(2):  # the same flow always takes the same member
            port, _ = switch.send_one(udp_frame(src, dst, sport, dport))
            assert port == want, (sport, port, want)
        ports_seen.add(want)
    assert len(ports_seen) > 1, "the sample flows should spread over several members"


def test_ecmp_ignores_ev(switch):
    want = expected_port(path_hash("10.0.2.1", "10.1.0.1", 17, 0xC000, MRC_PORT), UPLINK_PORTS)
    for ev in range(0, 4096, 257):
        port, _ = switch.send_one(mrc_frame(ev=ev))
        assert port == want


def test_ecmp_hashes_tcp_ports(switch):
    wants = set()
    for sport in range(40000, 40016):
        want = expected_port(path_hash("10.0.2.1", "10.1.0.1", 6, sport, 80), UPLINK_PORTS)
        port, _ = switch.send_one(tcp_frame(sport=sport))
        assert port == want
        wants.add(want)
    assert len(wants) > 1


def test_ev_mode_spreads_one_five_tuple_by_ev(switch):
    switch.set_spray_mode("ev")
    ports_seen = set()
    for ev in range(0, 0x10000, 0x0F0F):
        want = expected_port(path_hash("10.0.2.1", "10.1.0.1", 17, 0xC000, MRC_PORT, ev),
                             UPLINK_PORTS)
        port, _ = switch.send_one(mrc_frame(ev=ev))
        assert port == want, (ev, port, want)
        ports_seen.add(port)
    assert len(ports_seen) > 1, "different evs of one 5-tuple should use several members"


def test_ev_mode_non_mrc_falls_back_to_ecmp(switch):
    switch.set_spray_mode("ev")
    for src, dst, sport, dport in FLOWS[:6]:
        want = expected_port(path_hash(src, dst, 17, sport, dport), UPLINK_PORTS)
        port, _ = switch.send_one(udp_frame(src, dst, sport, dport))
        assert port == want


def test_random_mode_uses_only_group_members(switch):
    switch.set_spray_mode("random")
    counts = {port: 0 for port in UPLINK_PORTS}
    for _ in range(200):
        port, frame = switch.send_one(mrc_frame())
        assert port in counts
        assert frame[IP_OFF + 8] == 63
        counts[port] += 1
    # one flow, 200 packets: every member is picked (a miss has probability < 1e-24)
    assert all(counts.values()), counts


def test_random_mode_skips_dead_members(switch):
    switch.set_spray_mode("random")
    switch.down = {11, 13}
    ports = {switch.send_one(mrc_frame())[0] for _ in range(100)}
    assert ports == {12, 14}


def test_source_mode_label_beats_routing_tables(switch):
    switch.set_spray_mode("source")
    from p4emu.runtime.match import Exact
    from p4emu.runtime.tables import TableEntry

    switch.state.resolve_table("MrcIngress.source_label").insert(
        TableEntry((Exact(0x07),), action=switch.action("MrcIngress.forward", 9)))
    port, frame = switch.send_one(mrc_frame(route=0x0701020304050607))
    assert port == 9
    assert frame[MRC_OFF + 28:MRC_OFF + 36] == (0x0102030405060700).to_bytes(8, "big")


def test_source_mode_without_route_hashes_like_ev(switch):
    switch.set_spray_mode("source")
    for ev in (1, 2, 3, 0x8000, 0xFFFF):
        want = expected_port(path_hash("10.0.2.1", "10.1.0.1", 17, 0xC000, MRC_PORT, ev),
                             UPLINK_PORTS)
        port, frame = switch.send_one(mrc_frame(ev=ev, route=0))
        assert port == want
        assert frame[MRC_OFF + 28:MRC_OFF + 36] == bytes(8)


def test_unknown_spray_mode_behaves_as_ecmp(switch):
    switch.state.resolve_table("MrcIngress.spray_config").set_default(
        switch.action("MrcIngress.set_spray_mode", 9, 0))
    for ev in (1, 500, 40000):
        want = expected_port(path_hash("10.0.2.1", "10.1.0.1", 17, 0xC000, MRC_PORT),
                             UPLINK_PORTS)
        assert switch.send_one(mrc_frame(ev=ev))[0] == want


# ------------------------------------------------------------------ hash salt
SALTS = (0x00000001, 0x0000000C)  # e.g. the device ids of an edge and an aggregation switch
MANY_FLOWS = [("10.0.2.1", "10.1.0.1", 5000 + i, 6000) for i in range(128)]


def test_salt_zero_reproduces_the_unsalted_choice(switch):
    switch.set_spray_mode("ecmp", 0)
    for src, dst, sport, dport in FLOWS:
        crc = zlib.crc32(ipv4_bytes(src) + ipv4_bytes(dst)
                         + struct.pack("!BHH", 17, sport, dport)) & 0xFFFFFFFF
        assert switch.send_one(udp_frame(src, dst, sport, dport))[0] == \
            expected_port(crc, UPLINK_PORTS)


@pytest.mark.parametrize("mode", ["ecmp", "ev"])
def test_salted_choice_follows_the_model(switch, mode):
    ev = 0x1234 if mode == "ev" else None
    for salt in SALTS:
        switch.set_spray_mode(mode, salt)
        for src, dst, sport, _ in FLOWS:
            want = expected_port(path_hash(src, dst, 17, sport, MRC_PORT, ev, salt),
                                 UPLINK_PORTS)
            assert switch.send_one(mrc_frame(src, dst, sport, ev=0x1234))[0] == want


def _members(switch: Switch, mode: str, salt: int) -> list[int]:
    switch.set_spray_mode(mode, salt)
    return [switch.send_one(udp_frame(*flow))[0] for flow in MANY_FLOWS]


def test_different_salts_split_the_same_flows_independently(switch):
    """Two switches in series (edge, aggregation) with 2-member groups: with salts the
    pair of choices takes all four combinations, so all four cores behind them are used;
    without (equal salts) the second choice repeats the first (polarization)."""
    switch.down = {13, 14}  # 2 live members, as in a k=4 fat-tree
    first, second = (_members(switch, "ecmp", salt) for salt in SALTS)
    assert first != second
    combos = {(a, b) for a, b in zip(first, second, strict=True)}
    assert combos == {(11, 11), (11, 12), (12, 11), (12, 12)}
    same = _members(switch, "ecmp", SALTS[0])
    assert {(a, b) for a, b in zip(first, same, strict=True)} == {(11, 11), (12, 12)}


def test_salt_as_a_crc_field_would_not_decorrelate():
    """Why the salt is mixed in after the CRC: CRC is linear over GF(2), so a salt hashed as
    one more field only XORs a constant into the selector's crc16; with 2 members that
    flips every flow alike and the two switches stay locked together."""
    def member(salt: int, sport: int) -> int:
        data = struct.pack("!I", salt) + ipv4_bytes("10.0.2.1") + ipv4_bytes("10.1.0.1") \
            + struct.pack("!BHH", 17, sport, 6000)
        return crc16_arc((zlib.crc32(data) & 0xFFFFFFFF).to_bytes(4, "big")) % 2

    combos = {(member(SALTS[0], sport), member(SALTS[1], sport)) for sport in range(5000, 5128)}
    assert len(combos) == 2


def test_downlink_route_wins_over_uplink_group(switch):
    port, _ = switch.send_one(udp_frame(dst="10.0.1.20"))
    assert port == HOST_PORT


# ------------------------------------------------------------------ watch_port
def test_watch_port_skips_dead_member(switch):
    switch.down = {12}
    active = (11, 13, 14)
    wants = set()
    for src, dst, sport, dport in FLOWS:
        want = expected_port(path_hash(src, dst, 17, sport, dport), active)
        port, _ = switch.send_one(udp_frame(src, dst, sport, dport))
        assert port == want
        wants.add(port)
    assert 12 not in wants and len(wants) > 1


def test_watch_port_member_returns_when_port_comes_back(switch):
    flows = FLOWS[:8]
    before = [switch.send_one(udp_frame(*f))[0] for f in flows]
    switch.down = {before[0]}
    during = [switch.send_one(udp_frame(*f))[0] for f in flows]
    assert before[0] not in during
    switch.down = set()
    assert [switch.send_one(udp_frame(*f))[0] for f in flows] == before


def test_all_members_down_drops_and_counts_no_route(switch):
    switch.down = set(UPLINK_PORTS)
    assert switch.send(udp_frame()) == []
    assert switch.counter("MrcIngress.drops", 3) == 1
    # the host route is unaffected
    assert switch.send_one(udp_frame(dst="10.0.1.1"))[0] == HOST_PORT


# ------------------------------------------------------------------ explicit queue depths
# Pipeline.ingress stops at the traffic manager; Pipeline.egress runs one queued packet with
# the queueing metadata a BMv2 queue would give it. Port 1 carries the host route.
TRIM_AT, ECN_AT = 8, 20


@pytest.fixture
def tm_switch(switch) -> Switch:
    from p4emu.runtime.match import Exact
    from p4emu.runtime.tables import TableEntry

    switch.state.resolve_table("MrcIngress.port_thresholds").insert(TableEntry(
        (Exact(HOST_PORT),), action=switch.action("MrcIngress.set_thresholds", TRIM_AT, ECN_AT)))
    return switch


def host_mrc(**fields) -> bytes:
    return mrc_frame(dst="10.0.1.1", **fields)


def ingress_one(sw: Switch, frame: bytes):
    sw.now += 1
    jobs = sw.pipeline.ingress(IN_PORT, frame, sw.now)
    assert len(jobs) == 1
    assert jobs[0].port == HOST_PORT
    return jobs[0]


def egress(sw: Switch, job, enq_qdepth: int = 0, deq_qdepth: int = 0) -> bytes:
    out = sw.pipeline.egress(job, enq_qdepth=enq_qdepth, deq_qdepth=deq_qdepth, now_us=sw.now)
    assert len(out) == 1 and out[0][0] == HOST_PORT
    return out[0][1]


def estimate(sw: Switch, port: int = HOST_PORT) -> int:
    return sw.state.resolve_register("queue_depth_est").get(port)


def udp_checksum_ok(frame: bytes) -> bool:
    ip = frame[IP_OFF:IP_OFF + 20]
    udp = frame[UDP_OFF:]
    pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, len(udp))
    return internet_checksum(pseudo + udp) == 0


def with_udp_checksum(frame: bytes) -> bytes:
    udp = bytearray(frame[UDP_OFF:])
    ip = frame[IP_OFF:IP_OFF + 20]
    csum = internet_checksum(ip[12:20] + struct.pack("!BBH", 0, 17, len(udp)) + bytes(udp))
    udp[6:8] = struct.pack("!H", csum or 0xFFFF)
    return frame[:UDP_OFF] + bytes(udp)


def test_estimate_counts_admitted_packets_and_takes_one_off_on_dequeue(tm_switch):
    sw = tm_switch
    jobs = [ingress_one(sw, host_mrc()) for _ in range(3)]
    jobs.append(ingress_one(sw, udp_frame(dst="10.0.1.1")))  # non-MRC joins the data queue too
    assert [j.priority for j in jobs] == [0, 0, 0, 0]
    assert estimate(sw) == 4
    # the first leaves with 3 packets behind it
    egress(sw, jobs[0], enq_qdepth=0, deq_qdepth=3)
    assert estimate(sw) == 3
    ingress_one(sw, host_mrc())
    assert estimate(sw) == 4


def test_the_count_does_not_follow_what_deq_qdepth_counts(tm_switch):
    """BMv2 before 1.15.1 counts every priority FIFO of the port in deq_qdepth: the last
    data packet leaving with trimmed headers queued reads more than the data queue holds.
    Had the count taken that, it would stay above the threshold with an empty data queue,
    trimming every later DATA packet. Later BMv2 counts the packet's own FIFO: a header
    leaving an empty header FIFO reads 0 while data is still queued."""
    sw = tm_switch
    data = [ingress_one(sw, host_mrc()) for _ in range(2)]
    header = ingress_one(sw, host_mrc(mtype=1))
    egress(sw, header, enq_qdepth=0, deq_qdepth=0)  # its FIFO empty; 2 data still queued
    assert estimate(sw) == 2
    egress(sw, data[0], enq_qdepth=0, deq_qdepth=TRIM_AT + 5)  # headers counted behind it
    egress(sw, data[1], enq_qdepth=1, deq_qdepth=TRIM_AT + 4)
    assert estimate(sw) == 0
    assert ingress_one(sw, host_mrc()).priority == 0  # admitted


def test_a_count_left_high_by_a_full_queue_is_bounded_by_the_next_dequeue(tm_switch):
    """A packet admitted to a full data queue (drop-tail) is dropped by the queue and never
    leaves, so the count runs high; a data packet leaving bounds it by deq_qdepth + 1 (the
    data still queued, and one packet ingress may have counted and not yet queued)."""
    sw = tm_switch
    job = ingress_one(sw, host_mrc())
    sw.state.resolve_register("queue_depth_est").set(HOST_PORT, 3 * TRIM_AT)
    egress(sw, job, enq_qdepth=0, deq_qdepth=0)
    assert estimate(sw) == 1
    assert ingress_one(sw, host_mrc()).priority == 0


def test_trim_decision_at_the_exact_estimate(tm_switch):
    sw = tm_switch
    sw.state.resolve_register("queue_depth_est").set(HOST_PORT, TRIM_AT - 1)
    full = ingress_one(sw, host_mrc())
    assert full.priority == 0
    assert estimate(sw) == TRIM_AT  # admitted: counted
    trimmed = ingress_one(sw, host_mrc(qmax=2))
    assert trimmed.priority == 1
    assert estimate(sw) == TRIM_AT  # a trimmed header does not join the data queue
    # the header leaves an empty header FIFO; the TRIM_AT data packets are still queued
    out = egress(sw, trimmed, enq_qdepth=0, deq_qdepth=0)
    assert len(out) == 82
    assert out[MRC_OFF + 1] == 0x01                                   # TRIMMED
    assert out[IP_OFF + 2:IP_OFF + 4] == (68).to_bytes(2, "big")      # totalLen
    assert out[UDP_OFF + 4:UDP_OFF + 8] == bytes.fromhex("00300000")  # length 48, no checksum
    assert internet_checksum(out[IP_OFF:IP_OFF + 20]) == 0
    # qmax: the estimate that caused the trim, larger than the carried 2
    assert out[MRC_OFF + 22:MRC_OFF + 24] == TRIM_AT.to_bytes(2, "big")
    # a header leaving does not touch the data queue's count
    assert estimate(sw) == TRIM_AT
    assert sw.counter("MrcEgress.trimmed", HOST_PORT) == 1


def test_control_messages_use_high_priority_and_skip_the_estimate(tm_switch):
    sw = tm_switch
    sw.state.resolve_register("queue_depth_est").set(HOST_PORT, 100)
    for mtype in (1, 2, 3, 4):
        job = ingress_one(sw, host_mrc(mtype=mtype))
        assert job.priority == 1
        # the 100 data packets the estimate counts are still queued, not in its FIFO
        out = egress(sw, job, enq_qdepth=0, deq_qdepth=0)
        assert len(out) == len(host_mrc())  # never trimmed
    assert estimate(sw) == 100  # not counted in, nor lowered
    assert sw.counter("MrcEgress.trimmed", HOST_PORT) == 0


@pytest.mark.parametrize("depth, marked", [(0, False), (ECN_AT - 1, False), (ECN_AT, True),
                                           (ECN_AT + 30, True)])
def test_ecn_marks_at_exact_enq_qdepth(tm_switch, depth, marked):
    sw = tm_switch
    out = egress(sw, ingress_one(sw, host_mrc(ecn=2)), enq_qdepth=depth)
    assert out[IP_OFF + 1] & 0x03 == (3 if marked else 2)
    assert internet_checksum(out[IP_OFF:IP_OFF + 20]) == 0
    assert sw.counter("MrcEgress.ecn_marked", HOST_PORT) == (1 if marked else 0)


def test_ecn_not_ect_never_marked_at_any_depth(tm_switch):
    sw = tm_switch
    out = egress(sw, ingress_one(sw, host_mrc(ecn=0)), enq_qdepth=500)
    assert out[IP_OFF + 1] & 0x03 == 0
    assert sw.counter("MrcEgress.ecn_marked", HOST_PORT) == 0


@pytest.mark.parametrize("qmax_in, depth, qmax_out", [
    (5, 9, 9), (5, 3, 5), (9, 9, 9), (0, 70000, 0xFFFF), (0xFFFF, 0x7FFFF, 0xFFFF)])
def test_qmax_is_max_of_carried_and_enq_qdepth(tm_switch, qmax_in, depth, qmax_out):
    sw = tm_switch
    frame = with_udp_checksum(host_mrc(qmax=qmax_in))
    out = egress(sw, ingress_one(sw, frame), enq_qdepth=depth)
    assert int.from_bytes(out[MRC_OFF + 22:MRC_OFF + 24], "big") == qmax_out
    assert udp_checksum_ok(out), "UDP checksum must follow the qmax change"


def test_qmax_echoed_by_ack_is_left_alone(tm_switch):
    sw = tm_switch
    out = egress(sw, ingress_one(sw, host_mrc(mtype=1, qmax=4)), enq_qdepth=40)
    assert int.from_bytes(out[MRC_OFF + 22:MRC_OFF + 24], "big") == 4


def test_tx_counter_counts_packets_and_bytes(tm_switch):
    sw = tm_switch
    frame = host_mrc()
    for _ in range(3):
        egress(sw, ingress_one(sw, frame))
    data = sw.state.resolve_counter("MrcEgress.tx_packets").read(HOST_PORT)
    assert data.packets == 3
    assert data.bytes == 3 * len(frame)


class StrictPriorityPort:
    """One egress port as BMv2 queues it with --priority-queues 2: a FIFO per priority,
    enq_qdepth = packets already in that FIFO, deq_qdepth = packets left in it after the
    dequeue, the higher priority served first."""

    def __init__(self, sw: Switch) -> None:
        self.sw = sw
        self.fifos: dict[int, list] = {0: [], 1: []}

    def enqueue(self, job) -> None:
        fifo = self.fifos[job.priority]
        fifo.append((job, len(fifo)))

    def dequeue(self) -> bytes:
        fifo = self.fifos[1] if self.fifos[1] else self.fifos[0]
        job, enq = fifo.pop(0)
        return egress(self.sw, job, enq_qdepth=enq, deq_qdepth=len(fifo))


def test_burst_is_trimmed_once_the_data_queue_reaches_the_threshold(tm_switch):
    sw = tm_switch
    port = StrictPriorityPort(sw)
    burst = 30
    for _ in range(burst):  # arrives faster than the port drains: no dequeue in between
        port.enqueue(ingress_one(sw, host_mrc()))
    assert len(port.fifos[0]) == TRIM_AT
    assert len(port.fifos[1]) == burst - TRIM_AT
    assert estimate(sw) == TRIM_AT

    sent = [port.dequeue() for _ in range(burst)]
    headers, full = sent[:burst - TRIM_AT], sent[burst - TRIM_AT:]
    assert all(len(f) == 82 and f[MRC_OFF + 1] & 1 for f in headers)
    assert all(len(f) == len(host_mrc()) and not f[MRC_OFF + 1] & 1 for f in full)
    # each full packet reports the data-queue depth it met, 0..TRIM_AT-1
    assert [int.from_bytes(f[MRC_OFF + 22:MRC_OFF + 24], "big") for f in full] == \
        list(range(TRIM_AT))
    assert sw.counter("MrcEgress.trimmed", HOST_PORT) == burst - TRIM_AT

    # drained: the estimate is back to 0 and DATA is admitted again
    assert estimate(sw) == 0
    assert ingress_one(sw, host_mrc()).priority == 0
