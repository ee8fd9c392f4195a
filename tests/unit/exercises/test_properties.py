"""The pieces behind the exercises' history, mode and edge checks: test frames, the P4
property checks (student's program against the reference, packet by packet), a list of
egress queues per STF check, and the pure parts of the fabric checks for source routes,
congestion and planes (run in tests/integration/test_exercises.py)."""

from __future__ import annotations

import random
import re
import struct
from pathlib import Path
from types import SimpleNamespace

import pytest

from mrclab.exercises.catalog import ExerciseError, load_exercise, parse_exercise
from mrclab.exercises.mutants import load_mutants, mutate
from mrclab.exercises.p4 import queue_verdict
from mrclab.exercises.packets import (
    ACK,
    PROBE,
    describe,
    first_difference,
    mrc_frame,
    ones_sum,
    tcp_frame,
    udp_frame,
)
from mrclab.exercises.workspace import start
from mrclab.fabric.spec import parse_spec

# the frame of the exercises' hand-written STF files (ecn_boundary.stf, trim_*.stf, ...)
STF_FRAME = ("0000000001010000000002010800" "4502005400014000401123950a0002010a000101"
             "c00012b90040d777" "10001234000000070000001000000000000010000010000000abcdef"
             "000000000000000000000000" "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")


def _valid(frame: bytes) -> bool:
    ip_ok = ones_sum(frame[14:34]) == 0xFFFF
    if frame[23] != 17 or frame[40:42] == b"\0\0":
        return ip_ok
    pseudo = frame[26:34] + bytes([0, 17]) + frame[38:40]
    return ip_ok and ones_sum(pseudo + frame[34:]) == 0xFFFF


def test_the_default_frame_is_the_stf_files_frame():
    assert mrc_frame().hex() == STF_FRAME


@pytest.mark.parametrize("checksum", [True, 0x0001, 0x2000, 0xFFFE, 0xFFFF])
def test_frames_carry_right_checksums_and_can_be_given_one(checksum):
    frame = mrc_frame(route=0x0503000000000000, qmax=7, checksum=checksum)
    assert _valid(frame)
    if checksum is not True:
        assert struct.unpack("!H", frame[40:42])[0] == checksum
    assert _valid(udp_frame(b"\x01\x02\x03\x04", dport=6000)) and _valid(tcp_frame())
    assert mrc_frame(checksum=False)[40:42] == b"\0\0"


def test_a_frame_is_described_by_the_fields_the_exercises_write():
    text = describe(mrc_frame(msg_type=PROBE, ev=0xBEEF, qmax=3, route=0x05 << 56))
    assert "MRC PROBE" in text and "ev 0xBEEF" in text and "qmax 3" in text
    assert "route 0500000000000000" in text and "ECT(0)" in text
    assert describe(tcp_frame()).startswith("TCP") and "plain UDP" in describe(
        udp_frame(b"\0\0", dport=6000))


def test_a_difference_names_the_field_and_never_the_value_wanted():
    want = mrc_frame(qmax=7)
    got = mrc_frame(qmax=9)
    diff = first_difference(got, want)
    assert "its MRC qmax is 0x0009" in diff and "UDP checksum" in diff and "0007" not in diff
    assert first_difference(want, want) == ""
    assert "bytes long" in first_difference(got[:82], want)


def test_a_list_of_egress_queues_judges_each_packet_in_turn():
    jobs = [SimpleNamespace(port=1, priority=p) for p in (1, 0, 1)]
    assert queue_verdict(jobs, (1, 0, 1))[0]
    ok, detail = queue_verdict(jobs, (1, 1, 1))
    assert not ok and "packet 2" in detail and "queue 0" in detail
    assert not queue_verdict(jobs, (1, 0))[0]
    assert not queue_verdict(jobs, 1)[0] and queue_verdict(jobs[:1], 1)[0]


@pytest.mark.parametrize("priority, good", [
    ("1", True), ("[1, 0, 1]", True), ("[]", False), ("[1, 9]", False), ("'x'", False),
    ("true", False)])
def test_priority_is_a_queue_or_a_list_of_queues(priority, good):
    text = (f"files = ['a.p4']\nprogram = 'a.p4'\n[[check]]\nname='x'\nkind='stf'\n"
            f"stf='a.stf'\nhint='h'\npriority = {priority}\n")
    if good:
        check = parse_exercise("x", Path("/ex/x"), text).checks[0]
        assert check.priority in (1, (1, 0, 1))
    else:
        with pytest.raises(ExerciseError, match=re.escape("`priority`")):
            parse_exercise("x", Path("/ex/x"), text)


def _mutated(tmp_path, name: str, mutant_name: str):
    ex = load_exercise(name)
    mutant = next(m for m in load_mutants(ex) if m.name == mutant_name)
    ws = start(ex, tmp_path / "w", solution=True)
    path = ws.path(mutant.file)
    path.write_text(mutate(path.read_text(), mutant))
    return ws


def test_a_p4_property_check_names_the_situation_and_the_packet(tmp_path):
    from mrclab.exercises.p4_property_checks import trim_property

    ws = _mutated(tmp_path, "trim", "the data queue's estimate reset by a trim")
    ok, detail = trim_property(ws, "p4emu")
    assert not ok
    assert re.match(r"case \d+ of \d+ \(seed \d+\): port 1 trims at an estimate >= \d+", detail)
    assert "after 1. " in detail and "packet " in detail and "MRC DATA" in detail


def test_p4_property_checks_are_the_same_every_run(tmp_path):
    from mrclab.exercises.p4_property_checks import _source_cases, _spray_cases

    for gen in (_spray_cases, _source_cases):
        a, b = gen(random.Random(1)), gen(random.Random(1))
        assert [(c.setup, [p.frame for p in c.packets]) for c in a] == \
            [(c.setup, [p.frame for p in c.packets]) for c in b]


def test_the_checksum_edges_the_generators_aim_at():
    from mrclab.exercises.p4_property_checks import _update, edge_checksum

    rng = random.Random(3)
    kinds = set()
    for _ in range(200):
        rest = rng.randrange(1 << 19)
        c = edge_checksum(rng, rest)
        if c is None:
            continue
        carry, value = _update(c, rest)
        assert c and (carry or value == 0)
        kinds.add("zero" if value == 0 else "carry")
    assert kinds == {"zero", "carry"}


# --- pure parts of the fabric checks ------------------------------------------------------
def test_a_source_route_through_the_second_aggregation_and_core():
    from mrclab.exercises.fabric_checks import route_word, source_hops

    lab = SimpleNamespace(fabric=parse_spec("fattree:k=4"))
    hops = source_hops(lab, "h1", "h16")
    switches = [sw for sw, _ in hops]
    roles = [lab.fabric.switches[sw].role for sw in switches]
    assert roles == ["edge", "agg", "core", "agg", "edge"]
    assert switches[0] == lab.fabric.hosts["h1"].nics[0].switch
    assert hops[-1] == (lab.fabric.hosts["h16"].nics[0].switch,
                        lab.fabric.hosts["h16"].nics[0].switch_port)
    for (a, port), b in zip(hops, switches[1:], strict=False):  # each label leads to the next
        assert lab.fabric.switches[a].ports[port].node == b
    labels = [port for _, port in hops]
    assert route_word(labels).to_bytes(8, "big")[:5] == bytes(labels)


def test_the_planes_fabric_check_watches_each_plane_s_uplinks():
    from mrclab.exercises.fabric_checks import PLANES_SPEC, _plane_uplinks

    lab = SimpleNamespace(fabric=parse_spec(PLANES_SPEC))
    uplinks = _plane_uplinks(lab, "h1")
    assert sorted(uplinks) == [0, 1]
    for plane, ports in uplinks.items():
        assert len(ports) == 2 and all(sw == f"p{plane}l1" for sw, _ in ports)
        assert {lab.fabric.switches[sw].ports[p].node for sw, p in ports} == \
            {f"p{plane}s1", f"p{plane}s2"}


def test_checksummed_frames_for_the_source_fabric_check():
    from mrclab.exercises.frames import frame, is_ours, udp_checksum_ok

    data = frame("02:00:0a:00:00:01", "02:00:0a:00:03:02", "10.0.0.1", "10.3.1.2", 0x5EC0,
                 3, 0x0304020105000000)
    assert data[:12] == bytes.fromhex("02000a000302" "02000a000001")
    assert is_ours(data, 0x5EC0) and not is_ours(data, 1) and udp_checksum_ok(data)
    bent = bytearray(data)
    bent[70] ^= 0xFF  # a route changed without its checksum
    assert not udp_checksum_ok(bytes(bent))


def test_the_answer_is_never_in_a_planes_rule_failure(tmp_path):
    from mrclab.exercises.planes_checks import suspect_rule

    ws = _mutated(tmp_path, "planes", "a loss at time 0 not taken for a loss (-1 and 0 confused)")
    ok, detail = suspect_rule(ws, "p4emu")
    assert not ok and detail == "plane_suspect(0.0, -1.0) returned False, which is not right"


def test_a_held_verdict_is_part_of_the_history_shown(tmp_path):
    from mrclab.exercises.liveness_checks import held_verdicts_asked_again

    ws = _mutated(tmp_path, "liveness", "start_round() declares the link down itself")
    ok, detail = held_verdicts_asked_again(ws, "p4emu")
    assert not ok and "held in rounds 9, 10" in detail and "declared nothing" in detail


@pytest.mark.parametrize("name, check", [
    ("congestion", "random_histories"), ("liveness", "random_histories"),
    ("endpoint", "random_pool_histories"), ("planes", "random_pool_histories"),
    ("failover", "random_down_sets")])
def test_python_property_checks_pass_the_solution(tmp_path, name, check):
    import importlib

    ws = start(load_exercise(name), tmp_path / "w", solution=True)
    module = importlib.import_module(f"mrclab.exercises.{name}_checks")
    ok, detail = getattr(module, check)(ws, "p4emu")
    assert ok, detail
    assert ACK  # the packet constants import with the frames
