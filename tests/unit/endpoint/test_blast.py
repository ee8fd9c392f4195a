"""The raw MRC packet generator's pure parts: EV sequences, route words, plan checks."""

from __future__ import annotations

from collections import Counter

import pytest

from mrclab.endpoint.blast import BlastPlan, ev_sequence
from mrclab.endpoint.cli import main
from mrclab.endpoint.wire import parse_routes, route_word


def test_route_word_puts_the_first_hop_in_the_top_byte():
    assert route_word((3, 4, 2)) == 0x0304020000000000
    assert route_word(()) == 0


def test_cycle_visits_every_ev_equally():
    counts = Counter(ev_sequence(BlastPlan(count=640, ev_mode="cycle", ev=100, evs=64)))
    assert sorted(counts) == list(range(100, 164))
    assert set(counts.values()) == {10}


def test_fixed_uses_one_ev_and_random_stays_in_the_pool():
    assert set(ev_sequence(BlastPlan(count=50, ev_mode="fixed", ev=7))) == {7}
    seq = list(ev_sequence(BlastPlan(count=500, ev_mode="random", ev=10, evs=8, seed=3)))
    assert set(seq) == set(range(10, 18))
    assert seq == list(ev_sequence(BlastPlan(count=500, ev_mode="random", ev=10, evs=8,
                                             seed=3)))  # reproducible from the seed


@pytest.mark.parametrize("kwargs", [{"ev_mode": "zigzag"}, {"route": (1,) * 9},
                                    {"route": (0,)}, {"route": (256,)}])
def test_bad_plans_are_rejected(kwargs):
    with pytest.raises(ValueError):
        BlastPlan(count=1, **kwargs)


@pytest.mark.parametrize("argv, needle", [
    (["--ev", "abc"], "--ev"), (["--route", "1,x"], "--route"),
    (["--route", "1,300"], "route"), (["--payload", "99999"], "--payload"),
])
def test_cli_reports_bad_input_in_one_line(argv, needle, capsys):
    assert main(["blast", "--dst", "10.0.0.2", "--count", "3", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


class _Capture:
    """A frame sink in place of the raw socket."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.send_drops = 0
        self.closed = False

    def send(self, frame: bytes) -> None:
        self.frames.append(frame)

    def close(self) -> None:
        self.closed = True


def test_blast_frames_dissect_as_mrc_with_the_planned_fields():
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether

    from mrclab.endpoint.blast import blast
    from mrclab.endpoint.kernel_routes import Plane
    from mrclab.endpoint.layers import MRC

    plane = Plane("eth0", "10.0.0.1", "02:00:00:00:00:01", "10.0.3.4", "02:00:00:00:00:02",
                  1500)
    plan = BlastPlan(count=6, payload=100, ev_mode="cycle", ev=40, evs=3, route=(3, 4),
                     rate_pps=2000, conn=9)
    sink = _Capture()
    stats = blast(plane, plan, link=sink)
    assert sink.closed and stats.sent == 6 and stats.evs_used == 3
    pkts = [Ether(f) for f in sink.frames]
    assert all(p[IP].dst == "10.0.3.4" and p[IP].tos == 2 and p[UDP].dport == 4793
               and p[IP].len == 20 + 8 + 40 + 100 for p in pkts)
    assert [p[MRC].ev for p in pkts] == [40, 41, 42, 40, 41, 42]
    assert [p[MRC].psn for p in pkts] == list(range(6))
    assert [p[MRC].offset for p in pkts] == [0, 100, 200, 300, 400, 500]
    assert {p[MRC].route for p in pkts} == {0x0304000000000000}
    assert {(p[MRC].conn, p[MRC].length, p[MRC].sprintf("%type%")) for p in pkts} == \
        {(9, 100, "DATA")}
    assert [str(p[MRC].flags) for p in pkts] == [""] * 5 + ["LAST"]
    assert [p[MRC].ts for p in pkts] == [0, 500, 1000, 1500, 2000, 2500]  # scheduled, µs
    assert stats.seconds >= 6 / 2000  # paced
    # the IPv4 checksum Scapy computed once holds for every frame
    assert all(IP(bytes(p[IP])).chksum == Ether(bytes(Ether(f))).getlayer(IP).chksum
               for p, f in zip(pkts, sink.frames, strict=True))


def test_send_and_recv_start_without_importing_scapy():
    import subprocess
    import sys

    code = "import sys, mrclab.endpoint.cli; assert 'scapy' not in sys.modules, 'scapy imported'"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_routes_are_parsed_per_plane():
    assert parse_routes(["3,1", "1:4,2", "1:1"], 2) == (
        (0x0301000000000000,), (0x0402000000000000, 0x0100000000000000))
    assert parse_routes([], 2) == ()  # no routes: every plane hashes its EVs
    with pytest.raises(ValueError, match="plane '2' is not one of 0..1"):
        parse_routes(["2:1"], 2)
