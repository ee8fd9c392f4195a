"""STF values in address notation: p4c's BMv2 STF driver hands exact
keys, lpm prefixes and action arguments to simple_switch_CLI as written, whose parse_param
reads a.b.c.d for 32-bit, aa:bb:cc:dd:ee:ff for 48-bit and IPv6 for 128-bit fields only."""

import pytest

from p4emu.runtime.match import Exact, Lpm
from p4emu.runtime.model import KeyField, MatchKind
from p4emu.stf.keys import KeyValueError, key_match
from p4emu.stf.parser import StfError, parse_stf


def key(kind: MatchKind, width: int) -> KeyField:
    return KeyField(1, "f", kind, width)


def test_address_key_values():
    assert key_match("10.1.2.0/24", key(MatchKind.LPM, 32)) == Lpm(0x0A010200, 24)
    assert key_match("10.1.2.3", key(MatchKind.EXACT, 32)) == Exact(0x0A010203)
    assert key_match("00:11:22:aa:bb:0c", key(MatchKind.EXACT, 48)) == Exact(0x001122AABB0C)
    assert key_match("2001:db8::1/32", key(MatchKind.LPM, 128)) == Lpm(0x20010DB8 << 96, 32)


@pytest.mark.parametrize("text, kind, width", [
    ("10.1.2.3", MatchKind.EXACT, 16),        # IPv4 only for 32-bit fields
    ("00:11:22:aa:bb:0c", MatchKind.EXACT, 32),
    ("10.1.2.256", MatchKind.EXACT, 32),
    ("10.1.2", MatchKind.EXACT, 32),
    ("10.0.0.0&&&255.0.0.0", MatchKind.TERNARY, 32),  # the driver's mask rewrite needs 0x/0b/0o
])
def test_address_values_rejected(text, kind, width):
    with pytest.raises(KeyValueError):
        key_match(text, key(kind, width))


def test_action_arguments_keep_address_values():
    (cmd,) = parse_stf("add t k:1 fwd(mac:00:00:00:00:0b:0b, ip:10.0.0.1, port:2)")
    assert dict(cmd.action.args) == {"mac": 0xB0B, "ip": 0x0A000001, "port": 2}
    with pytest.raises(StfError):
        parse_stf("add t k:1 fwd(ip:10.0.0)")
