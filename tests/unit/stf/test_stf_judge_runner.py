"""The judge and the runner, driven by a fake switch (no compiler involved)."""

import pytest

from p4emu.runtime.device import DeviceState
from p4emu.runtime.model import (
    ActionInfo,
    ActionRef,
    CounterInfo,
    CounterUnit,
    KeyField,
    MatchKind,
    ParamInfo,
    ProgramInfo,
    TableInfo,
)
from p4emu.stf.commands import Expect
from p4emu.stf.judge import judge, packet_matches
from p4emu.stf.parser import StfError, parse_stf
from p4emu.stf.runner import run_commands


def test_packet_matches_wildcards_prefix_and_length():
    data = bytes.fromhex("0a0b0c0d")
    assert packet_matches("0A0B", False, data)  # prefix
    assert not packet_matches("0A0B", True, data)  # '$': length must match
    assert packet_matches("0A*B0C0D", True, data)
    assert packet_matches("****0C", False, data)
    assert not packet_matches("0A0B0C0D0E", False, data)  # received too short
    assert not packet_matches("0A0C", False, data)
    assert packet_matches(None, False, b"")


def E(port, pattern, line=1, exact=False):
    return Expect(line, port, pattern, exact)


def test_judge_order_count_silence_and_unwatched():
    outputs = {1: [b"\x01", b"\x02"], 2: [b"\x03"], 9: [b"\xff"]}
    ok = judge([E(1, "01"), E(1, "02"), E(2, "03")], outputs, {0, 1, 2})
    assert (ok.passed, ok.failed) == (3, 0)  # port 9 is not watched
    swapped = judge([E(1, "02"), E(1, "01"), E(2, "03")], outputs, {0, 1, 2})
    assert swapped.failed == 2
    missing = judge([E(1, "01"), E(1, "02"), E(1, "03"), E(2, "03")], outputs, {1, 2})
    assert [m.got for m in missing.mismatches] == [None]
    # a watched port with no expectation must stay silent
    silent = judge([E(1, "01"), E(1, "02")], outputs, {1, 2})
    assert [(m.port, m.expected, m.got) for m in silent.mismatches] == [(2, None, b"\x03")]
    anyp = judge([E(1, None), E(1, None), E(2, None)], outputs, {1, 2})
    assert anyp.failed == 0


PORT_IN = KeyField(1, "standard_metadata.ingress_port", MatchKind.EXACT, 9)
FWD = ActionInfo(2, "ingress.fwd", (ParamInfo(1, "port", 9),))
DROP = ActionInfo(3, "ingress.drop")


def fake_device() -> tuple[DeviceState, callable]:
    """A reflector: table ingress.t on the ingress port; fwd(port) sends, else drop;
    counter ingress.c counts per ingress port; multicast group = port + 100 if set."""
    table = TableInfo(10, "ingress.t", (PORT_IN,), (ActionRef(2), ActionRef(3)),
                      default_action_id=3)
    info = ProgramInfo(actions={2: FWD, 3: DROP}, tables={10: table},
                       counters={20: CounterInfo(20, "ingress.c", 8, CounterUnit.BOTH)})
    state = DeviceState.from_program(info, clock_us=lambda: 0)

    def process(port, data, now_us):
        state.counters["ingress.c"].count(port, len(data))
        result = state.tables["ingress.t"].lookup((port,), len(data))
        if result.action_id == 2:
            out = result.args[0]
            replicas = state.pre.replicas(out)
            if replicas:
                return [(p, data) for _, p in replicas]
            return [(out, data)]
        return []

    return state, process


def run(text):
    state, process = fake_device()
    return run_commands(parse_stf(text, "t.stf"), state, process, "t.stf")


def test_runner_passes_and_counts():
    result = run("""
expect 2 abcd $     # expectations may come before their packet
add t standard_metadata.ingress_port:1 fwd(port:2)
packet 1 ab cd
packet 3 ee          # miss: dropped
check_counter c(1) packets == 1
check_counter c(1) bytes == 2
check_counter c(4)
""")
    assert result.ok and (result.passed, result.failed) == (4, 0)
    assert result.report_lines()[-1] == "t.stf: 4 passed, 0 failed"


def test_runner_detects_wrong_expectation_and_extra_packet():
    result = run("""
add ingress.t ingress_port:1 ingress.fwd(port:2)
packet 1 abcd
packet 1 abce
expect 2 abcf
check_counter c(1) packets == 5
""")
    assert not result.ok
    assert result.failed == 3  # wrong data, unexpected second packet, counter
    lines = result.report_lines()
    assert any("port 2: expected ABCF (line 5), got ABCD" in line for line in lines)
    assert lines[-1] == "t.stf: 0 passed, 3 failed"


def test_runner_silent_port_and_multicast_setdefault():
    result = run("""
mc_mgrp_create 103
mc_node_create 0 4 5
mc_node_associate 103 0
setdefault t fwd(port:103)
packet 1 01
expect 4 01
expect 5 01
expect 6
""")
    # port 6 is watched and expected a packet that never came
    assert result.failed == 1 and result.passed == 2


@pytest.mark.parametrize("bad", [
    "add nosuch k:1 fwd(port:1)",
    "add t ingress_port:1 fwd(port:1, extra:2)",
    "add t ingress_port:1 fwd()",
    "add t ingress_port:1 nosuch()",
    "check_counter nosuch(1)",
    "remove E",
])
def test_runner_bad_lines(bad):
    with pytest.raises(StfError) as info:
        run("packet 0 00\n" + bad)
    assert str(info.value).startswith("t.stf:2: error:")


def test_switch_refusals_are_warnings_like_simple_switch_cli():
    # the driver passes the value verbatim; simple_switch_CLI refuses it and the run goes on
    result = run("add t ingress_port:999 fwd(port:1)\npacket 0 00")
    assert result.ok and len(result.rejected) == 1
    assert result.rejected[0].startswith("t.stf:1: warning:")


def test_omitted_exact_key_means_zero_like_p4c_driver():
    result = run("""
add t fwd(port:6)
packet 0 aa
packet 1 bb
expect 6 aa
""")
    assert result.ok  # the entry matches ingress port 0 only: port 1's packet is dropped


def test_runner_pre_and_counter_cli_commands():
    state, process = fake_device()
    text = """
mc_mgrp_create 107
mc_node_create 1 2
mc_node_create 2 3
mc_node_associate 107 1
mc_node_update 1 4 5
mirroring_add_mc 9 107
counter_write ingress.c 3 10 1000
check_counter c(3) packets == 10
check_counter c(3) bytes == 1000
add t ingress_port:1 fwd(port:107)
packet 1 01
expect 4 01
expect 5 01
"""
    result = run_commands(parse_stf(text, "t.stf"), state, process, "t.stf")
    assert result.ok, result.report_lines()
    assert state.pre.clone_targets(9) == [(2, 4), (2, 5)]
    assert state.pre.replicas(107) == [(2, 4), (2, 5)]
