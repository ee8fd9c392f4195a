"""v1model pipeline on compiled programs."""

import os

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.device import DeviceState
from p4emu.runtime.match import Lpm
from p4emu.runtime.tables import TableEntry
from p4emu.v1model.pipeline import Pipeline

PROGRAMS = os.path.join(os.path.dirname(__file__), "..", "frontend", "programs")

ETH = bytes.fromhex("000000000001" "000000000002")


def ipv4(dst: bytes, ttl: int = 64) -> bytes:
    hdr = bytearray(bytes.fromhex("4500001c00010000") + bytes([ttl, 17]) + b"\0\0" + bytes([1, 2, 3, 4]) + dst)
    s = sum(int.from_bytes(hdr[i:i + 2], "big") for i in range(0, 20, 2))
    s = (s & 0xFFFF) + (s >> 16)
    hdr[10:12] = (~s & 0xFFFF).to_bytes(2, "big")
    return bytes(hdr)


def checksum_ok(hdr: bytes) -> bool:
    s = sum(int.from_bytes(hdr[i:i + 2], "big") for i in range(0, 20, 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


@pytest.fixture(scope="module")
def l3():
    r = compile_file(os.path.join(PROGRAMS, "l3.p4"))
    return load_ir(r.ir)


@pytest.fixture(scope="module")
def features():
    return compile_file(os.path.join(PROGRAMS, "features.p4")).program


def make(program):
    state = DeviceState.from_program(program.info)
    return Pipeline(program, state), state


def test_l3_forwards_and_rewrites(l3):
    pl, st = make(l3)
    fwd = l3.info.by_name("actions", "RouterIngress.ipv4_forward")
    st.tables["RouterIngress.ipv4_lpm"].insert(
        TableEntry(match=(Lpm(0x0A000000, 8),), action=ActionCall(fwd.id, (0x112233445566, 3))))
    pkt = ETH + b"\x08\x00" + ipv4(bytes([10, 1, 1, 1])) + b"payload!"
    out = pl.process(1, pkt)
    assert len(out) == 1
    port, data = out[0]
    assert port == 3
    assert data[:6] == bytes.fromhex("112233445566") and data[6:12] == ETH[:6]
    assert data[14 + 8] == 63 and checksum_ok(data[14:34])
    assert data[34:] == b"payload!"


def test_l3_miss_drops_and_short_packet_survives(l3):
    pl, _ = make(l3)
    assert pl.process(1, ETH + b"\x08\x00" + ipv4(bytes([11, 0, 0, 1]))) == []
    assert pl.process(2, b"\x01") == [(0, b"\x01")]  # parser error: not dropped, egress_spec 0
    assert pl.process(2, ETH + b"\x08\x00" + b"\x45") == [(0, ETH + b"\x08\x00\x45")]


def test_features_ternary_subcontrol_register(features):
    pl, st = make(features)
    out = pl.process(1, ETH + bytes.fromhex("9abc") + bytes([0x15, 0x80]) + b"pay")
    # tern: 0x15 matches 0x10&&&0xF0 -> set_color(1) -> port 1; a = sat(0x15 + 3 + 250) | 0xF; s = -128 >> 1
    assert out == [(1, bytes.fromhex("000000000002") + out[0][1][6:12] + bytes.fromhex("9abc") + b"\xff\xc0pay")]
    assert out[0][1][6:12] != bytes(6)  # source MAC := crc16 hash
    assert pl.process(1, ETH + bytes.fromhex("9abc") + bytes([0x25, 0x80]))[0][0] == 2
    assert st.registers["I.regs"].values[2] == 2


def test_features_union_and_source_route(features):
    pl, _ = make(features)
    assert pl.process(1, ETH + bytes.fromhex("8801") + b"\x01\x02zz") == [(5, ETH + bytes.fromhex("8801") + b"\x42zz")]
    route = ETH + bytes.fromhex("1234") + bytes([0x00, 0x02, 0x80, 0x03]) + ipv4(bytes([5, 6, 7, 8]))
    assert pl.process(1, route) == []  # route table miss: drop()


@pytest.fixture(scope="module")
def replicate():
    return compile_file(os.path.join(PROGRAMS, "replicate.p4")).program


def replicate_device(program):
    from p4emu.runtime.pre import CloneSession

    pl, st = make(program)
    st.pre.set_clone_session(CloneSession(5, egress_port=9))
    st.pre.create_group(7)
    st.pre.associate(7, st.pre.create_node(3, [4, 2]))
    return pl, st


def run_mode(pl, mode):
    pkt = bytes([0, 0, 0, 0, 0, mode]) + bytes.fromhex("0000000000aa8888") + b"PAY"
    return [(p, d[14:18].hex(), d[18:]) for p, d in pl.process(6, pkt)]


def test_clone_i2e_preserves_field_list(replicate):
    pl, _ = replicate_device(replicate)
    # tag = instance_type, egress_port, kept (field list 1), egress_rid
    assert run_mode(pl, 1) == [(9, "01091100", b"PAY"), (1, "00011100", b"PAY")]
    assert run_mode(pl, 5) == [(9, "01090000", b"PAY")]  # plain clone keeps nothing; original dropped


def test_resubmit_multicast_truncate(replicate):
    pl, _ = replicate_device(replicate)
    assert run_mode(pl, 2) == [(1, "00011100", b"PAY")]
    assert run_mode(pl, 3) == [(2, "05021103", b"PAY"), (4, "05041103", b"PAY")]
    out = pl.process(6, bytes([0, 0, 0, 0, 0, 4]) + bytes.fromhex("0000000000aa8888") + b"PAY")
    assert out == [(1, bytes([0, 0, 0, 0, 0, 4, 0, 0, 0, 0]))]


def test_recirculate_and_e2e_clone(replicate):
    pl, _ = replicate_device(replicate)
    out = run_mode(pl, 6)  # recirculated once: the first pass's tag is now payload
    assert out == [(1, "00011100", bytes.fromhex("00011100") + b"PAY")]
    assert run_mode(pl, 8) == [(1, "00011100", b"PAY"), (9, "02091100", b"PAY")]


def test_digest_pushed_once_per_packet(replicate):
    pl, st = replicate_device(replicate)
    run_mode(pl, 0)
    run_mode(pl, 2)  # resubmitted pass does not digest again (instance_type != 0)
    (did,) = replicate.info.digests
    assert [f.name for f in replicate.info.digests[did].fields] == ["srcAddr", "port"]
    assert st.digest_queue.pushed[did] == 2


def test_calc_lookahead_const_entries_and_stack_push(calc):
    pl, _ = make(calc)
    eth = bytes.fromhex("000000000001000000000002")
    calc_hdr = bytes.fromhex("5034012b") + (5).to_bytes(4, "big") + (7).to_bytes(4, "big") + bytes(4)
    (port, data), = pl.process(3, eth + bytes.fromhex("1234") + calc_hdr)
    assert port == 3 and data[:6] == eth[6:] and data[-4:] == (12).to_bytes(4, "big")
    sub = bytes.fromhex("5034012d") + (5).to_bytes(4, "big") + (7).to_bytes(4, "big") + bytes(4)
    assert pl.process(3, eth + bytes.fromhex("1234") + sub)[0][1][-4:] == bytes.fromhex("fffffffe")
    assert pl.process(3, eth + bytes.fromhex("1234") + bytes.fromhex("5034017f") + bytes(12)) == []
    full = eth + bytes.fromhex("5678") + bytes([3]) + bytes.fromhex("000000090003") * 3 + b"xy"
    (port, data), = pl.process(3, full)
    trace = bytes.fromhex("0000002a0000")
    assert port == 2 and data[14:] == bytes([4]) + trace + bytes.fromhex("000000090003") * 2 + b"xy"


@pytest.fixture(scope="module")
def calc():
    return compile_file(os.path.join(PROGRAMS, "calc_mri.p4")).program


def test_for_loops_break_continue_compound_assign():
    program = compile_file(os.path.join(PROGRAMS, "loops.p4")).program
    pl, _ = make(program)
    out = pl.process(1, bytes([10, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0]))
    # b = 0+1+3+4+5 (2 skipped, stop at 6); c = (1+2+3) | 0x10 | 0x20 | 0x30
    assert out == [(1, bytes([10, 13, 0x36, 1, 0, 0, 2, 0, 0, 3, 0, 0]))]


def test_function_and_action_parameter_passing():
    program = compile_file(os.path.join(PROGRAMS, "functions.p4")).program
    pl, _ = make(program)
    out = pl.process(1, bytes([5, 0x2F, 0, 0, 9, 9]))
    # h.a doubled; g.a = h.a + 1 = 6; h.b[3:0] = 0xF + 1 wraps to 0;
    # g.b = 0 + 100, then max(100, 150); k reset by an `out` parameter: invalid, not emitted
    assert out == [(1, bytes([10, 0x20, 6, 150]))]


def test_packet_out_packet_in_counters_and_digest():
    from p4emu.runtime.match import Exact

    program = compile_file(os.path.join(PROGRAMS, "p4rt.p4")).program
    pl, st = make(program)
    eth = bytes.fromhex("0000000000aa" "0000000000bb" "0800")
    # packet-out: header says egress port 3 (bit<9> 3 then 7 pad bits)
    assert pl.process(64, bytes([0x01, 0x80]) + eth) == [(3, eth)]
    # to the CPU: ecmp miss -> default NoAction; acl miss; egress_spec from set_port
    set_port = program.info.by_name("actions", "PI.set_port").id
    acl = st.tables["PI.acl_table"]
    from p4emu.runtime.match import Range, Ternary
    acl.insert(TableEntry(match=(Ternary(0xAA, 0xFF), Range(0x800, 0x800)), priority=1,
                          action=ActionCall(set_port, (64,))))
    learn = program.info.by_name("actions", "PI.learn").id
    st.tables["PI.smac"].insert(TableEntry(match=(Exact(0xBB),), action=ActionCall(learn, ())))
    out = pl.process(5, eth + b"xyz")
    assert out == [(64, bytes([0x02, 0x80]) + eth + b"xyz")]  # packet_in.ingress_port = 5
    assert st.counters["PI.port_counter"].read(5).packets == 1
    assert st.counters["PI.port_counter"].read(5).bytes == len(eth) + 3
    (did,) = program.info.digests
    assert st.digest_queue.pushed[did] == 1


@pytest.fixture(scope="module")
def arith():
    return compile_file(os.path.join(PROGRAMS, "arith.p4")).program


@pytest.mark.parametrize("a, b, s, w", [(100, 30, -100, 0x1234), (7, 9, 5, 0x00FF), (255, 0, -128, 0xFF80)])
def test_arithmetic_matches_bmv2_semantics(arith, a, b, s, w):
    pl, _ = make(arith)
    inp = bytes([a, b, s & 0xFF]) + w.to_bytes(2, "big")
    ((port, data),) = pl.process(0, inp)
    m8 = 0xFF

    def sat8(v):
        return max(-128, min(127, v)) & m8

    expect = [
        128, 150, (a + 200) & m8, (a - b) & m8, (a * 3) & m8, min(a + b, 255), max(b - a, 0),
        (a << 4) & m8, (a >> b) if b < 8 else 0, -a & m8, ~a & m8, (s >> 2) & m8,
        sat8(s - 100),
    ]
    out = list(data[5:])
    assert out[:13] == expect
    assert int.from_bytes(bytes(out[13:15]), "big") == (a << 8) | b
    assert out[15:] == [(w >> 4) & m8, a // 7, a % 7, 1 if (s < 0 and a > b) else 2,
                        (a + 300) & m8, w & m8]
    assert port == 1 and data[:5] == inp


@pytest.mark.parametrize("op, expect", [
    # Once (one call site: arguments substituted) adds 1; Bump (two call sites:
    # temporaries) adds 0x11 to m and 1 to t.y each time
    (0, "00630b" "0a0b0d"),
    # Bump exits: its temporaries are not copied out (k.y and m keep their values)
    (1, "00410a" "0a0b0c"),
    # Once exits after n + 1: substituted arguments keep the write
    (2, "00410a" "0a0b0c"),
    # an action's inout parameters are copied out before its exit
    (3, "00770a" "0a0b0c"),
    # `in` is a copy even when it aliases an inout argument
    (4, "00400a" "0a0c0b"),
])
def test_copy_in_copy_out_and_exit(op, expect):
    program = compile_file(os.path.join(PROGRAMS, "copy_exit.p4")).program
    pl, _ = make(program)
    out = pl.process(0, bytes([op, 0, 0x0A, 0x0A, 0x0B, 0x0C]))
    assert out == [(1, bytes([op]) + bytes.fromhex(expect)[1:])]


def test_clone_and_recirculate_requests_act_at_register_checks():
    from p4emu.runtime.pre import CloneSession

    program = compile_file(os.path.join(PROGRAMS, "stage.p4")).program
    pl, st = make(program)
    st.pre.set_clone_session(CloneSession(5, egress_port=9))
    # E2E-typed clone in ingress: cloned at the end of ingress (instance_type 1)
    assert pl.process(0, bytes([1, 0, 0])) == [(9, bytes([1, 1, 0])), (1, bytes([1, 0, 1]))]
    # recirculate requested in ingress: after egress, a second pass (instance_type 4)
    assert pl.process(0, bytes([2, 0, 0])) == [(1, bytes([2, 0, 2]))]
    # I2E-typed clone in egress: an egress clone of the egress-modified headers
    assert pl.process(0, bytes([3, 0, 0])) == [(1, bytes([3, 0, 1])), (9, bytes([3, 2, 0]))]
