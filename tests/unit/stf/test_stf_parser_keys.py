import pytest

from p4emu.runtime.match import Exact, Lpm, Optional, Range, Ternary
from p4emu.runtime.model import KeyField, MatchKind
from p4emu.stf import commands as c
from p4emu.stf.keys import KeyValueError, key_match, resolve_key_name
from p4emu.stf.parser import StfError, parse_stf


def one(line: str) -> c.Command:
    [cmd] = parse_stf(line)
    return cmd


def test_add_with_priority_keys_action_and_id():
    cmd = one("add ingress.t 7 hdr.h.f:0x0A  k2 : 0b11 ingress.set(port:2, v: 10) = $E1")
    assert cmd == c.Add(1, "ingress.t", 7, (("hdr.h.f", "0x0A"), ("k2", "0b11")),
                        c.ActionSpec("ingress.set", (("port", 2), ("v", 10))), "E1")
    assert one("ADD t k:1 a()").priority is None


def test_packet_expect_and_comments():
    text = "# header\npacket 0 0a 0B0c  # trailing\n\nexpect 2 0a**0c $\nexpect 3\nwait\n"
    cmds = parse_stf(text, "f.stf")
    assert cmds[0] == c.Packet(2, 0, b"\x0a\x0b\x0c")
    assert cmds[1] == c.Expect(4, 2, "0A**0C", True)
    assert cmds[2] == c.Expect(5, 3, None)
    assert isinstance(cmds[3], c.Wait)
    assert one("packet 1 ab").data == b"\xab"  # one byte: never padded


def test_check_counter_remove_and_cli():
    assert one("check_counter ingress.cnt(3) bytes >= 0x40") == c.CheckCounter(
        1, "ingress.cnt", 3, None, "bytes", ">=", 64)
    assert one("check_counter cnt($A)") == c.CheckCounter(1, "cnt", None, "A", None, "==", 0)
    assert one("remove all") == c.Remove(1, None)
    assert one("mc_node_create 5 1 2 3") == c.CliCommand(1, "mc_node_create",
                                                         ("5", "1", "2", "3"))


@pytest.mark.parametrize("line", [
    "packet 0 abc",  # odd number of digits
    "packet x 00",
    "expect 1 zz",
    "add t k:1",  # no action
    "frobnicate 1",
    "mirroring_add 1",
    "check_counter c(1) packets ~ 3",
])
def test_bad_lines_name_file_and_line(line):
    with pytest.raises(StfError) as info:
        parse_stf("\n" + line, "bad.stf")
    assert str(info.value).startswith("bad.stf:2: error:")


def key(kind: MatchKind, width: int) -> KeyField:
    return KeyField(1, "f", kind, width)


def test_ternary_mask_from_written_digits():
    assert key_match("0x**ab", key(MatchKind.TERNARY, 16)) == Ternary(0xAB, 0xFF)
    assert key_match("0x0a", key(MatchKind.TERNARY, 16)) == Ternary(0x0A, 0xFF)
    assert key_match("0b1*0", key(MatchKind.TERNARY, 8)) == Ternary(0b100, 0b101)
    assert key_match("0x****", key(MatchKind.TERNARY, 16)) is None
    assert key_match("5", key(MatchKind.TERNARY, 8)) == Ternary(5, 0xFF)
    assert key_match("0x12&&&0xF0", key(MatchKind.TERNARY, 8)) == Ternary(0x10, 0xF0)
    with pytest.raises(KeyValueError):
        key_match("0x123", key(MatchKind.TERNARY, 8))


def test_lpm_prefix_from_digit_count():
    assert key_match("0x0a01/16", key(MatchKind.LPM, 16)) == Lpm(0x0A01, 16)
    assert key_match("0x0a000000/8", key(MatchKind.LPM, 32)) == Lpm(0x0A000000, 8)
    assert key_match("0x0a0b0c0d", key(MatchKind.LPM, 32)) == Lpm(0x0A0B0C0D, 32)
    assert key_match("0b1010", key(MatchKind.LPM, 4)) == Lpm(0b1010, 4)
    assert key_match("0x0a**", key(MatchKind.LPM, 16)) == Lpm(0x0A00, 8)
    assert key_match("0x0/0", key(MatchKind.LPM, 32)) is None
    with pytest.raises(KeyValueError):
        key_match("0x0a0b0c0d0e", key(MatchKind.LPM, 32))


def test_exact_range_optional_values():
    assert key_match("0b101", key(MatchKind.EXACT, 3)) == Exact(5)
    assert key_match("10", key(MatchKind.EXACT, 8)) == Exact(10)
    assert key_match("3->9", key(MatchKind.RANGE, 8)) == Range(3, 9)
    assert key_match("0->255", key(MatchKind.RANGE, 8)) is None
    assert key_match("4", key(MatchKind.OPTIONAL, 8)) == Optional(4)
    with pytest.raises(KeyValueError):
        key_match("256", key(MatchKind.EXACT, 8))


def test_key_name_resolution():
    names = ["hdr.ipv4.dstAddr", "hdr.stk[1].f", "hdr.h.$valid$", "meta.dstAddr2"]
    assert resolve_key_name("hdr.ipv4.dstAddr", names) == 0
    assert resolve_key_name("dstAddr", names) == 0
    assert resolve_key_name("ipv4.dstAddr", names) == 0
    assert resolve_key_name("hdr.stk$1.f", names) == 1
    assert resolve_key_name("hdr.h", names) == 2
    assert resolve_key_name("h.valid", names) == 2
    with pytest.raises(KeyValueError):
        resolve_key_name("nothere", names)
    with pytest.raises(KeyValueError):
        resolve_key_name("f", ["a.f", "b.f"])
