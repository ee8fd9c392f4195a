"""Regressions of the C faults found while building the fuzzer (docs/native.md,
"Sanitizers and fuzzing", "Faults found"), each reproduced before it was fixed:

- the compiled traffic manager's serve pass took a snapshot of at most 256 ports' queues
  and raised ValueError("too many ports") beyond, on every pass: a program sending to
  more than 256 distinct egress ports (egress_spec from a header field, a table per host)
  stopped the switch's egress on every port, where the Python traffic manager serves any
  number;
- the compiled tables expanded each selector group into one slot per unit of member
  weight, unchecked: P4Runtime weights are int32 and mrc.p4's selector has no
  @max_group_size, so a client's weight of 2^31-1 asked malloc for 8 GiB or more (NULL,
  written through: a segfault) and overflowed the int32 slot counter.
"""

from __future__ import annotations

import random
import resource

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.native.pipeline import NativePipeline
from p4emu.runtime.action_profiles import GroupMember
from p4emu.runtime.actions import ActionCall
from p4emu.runtime.device import DeviceState
from p4emu.runtime.match import Exact
from p4emu.runtime.tables import TableEntry
from p4emu.switch.core import SwitchCore
from p4emu.switch.native_traffic_manager import NativeTrafficManager
from p4emu.switch.traffic_manager import QueueSettings, TrafficManager
from p4emu.v1model.pipeline import Pipeline
from tests.unit.native.compare import P4_DIR

# egress_spec straight from the frame: every 9-bit port a host names gets its queues
PORT_FROM_FRAME = """
#include <core.p4>
#include <v1model.p4>
header h_t { bit<7> pad; bit<9> port; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = hdr.h.port; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


class _Ports:
    def __init__(self) -> None:
        self.ports = dict.fromkeys([1, 2])
        self.sent: list[tuple[int, bytes, float]] = []

    def send(self, number, frame, start_us=None):
        self.sent.append((number, frame, start_us))
        return True


class _Program:
    def __init__(self, pipeline, info) -> None:
        self.pipeline, self.info, self.cookie = pipeline, info, 0


def _serve_every_port(tm_class, pipeline_class, program) -> tuple:
    clock = [0]
    core = SwitchCore(cpu_port=None, clock_ns=lambda: clock[0])
    ports = _Ports()
    tm = tm_class(core, ports, QueueSettings(line_rate_bps=1e9))
    state = DeviceState.from_program(program.info, clock_us=core.clock_us)
    core.program = _Program(pipeline_class(program, state), program.info)
    returns = []
    for port in [p for p in range(512) if p != 511] + list(range(0, 510, 7)):
        clock[0] += 100  # a frame every 100 ns: queues build up on a 1 Gb/s line
        returns.append(tm.receive_due(1, port.to_bytes(2, "big") + bytes(62)))
    for _ in range(5):
        clock[0] += 10**9
        returns.append(tm.serve_due())
    return returns, ports.sent, len(tm.queues), tm.pipeline_errors


def test_the_compiled_traffic_manager_serves_more_than_256_ports(tmp_path):
    source = tmp_path / "port_from_frame.p4"
    source.write_text(PORT_FROM_FRAME)
    program = load_ir(compile_file(str(source)).ir)
    python = _serve_every_port(TrafficManager, Pipeline, program)
    native = _serve_every_port(NativeTrafficManager, NativePipeline, program)
    returns, sent, queues, errors = native
    assert queues == 511 and errors == 0  # ports 0..510 (511 drops)
    assert len(sent) == 511 + len(range(0, 510, 7)) and returns[-1] is None
    assert native == python


def _selector(weights: dict[int, int], native: bool):
    """action_selector.p4 with one group of members (port -> weight), the table's key
    a == 1 on it: member = c % total weight, members by id, each `weight` times."""
    program = load_ir(compile_file(str(P4_DIR / "action_selector.p4")).ir)
    state = DeviceState.from_program(program.info, rng=random.Random(1))
    pipe = (NativePipeline if native else Pipeline)(program, state)
    sel = state.resolve_action_profile("sel")
    fwd = state.resolve_action("fwd").id
    for mid, port in enumerate(weights, start=1):
        sel.insert_member(mid, ActionCall(fwd, (port,)))
    sel.insert_group(7, [GroupMember(mid, w) for mid, w in enumerate(weights.values(), 1)])
    state.resolve_table("t").insert(TableEntry(match=(Exact(1),), group_id=7))
    return pipe


def _frame(c: int) -> bytes:
    return bytes([1, 0]) + c.to_bytes(2, "big")


def test_a_group_heavier_than_the_slot_limit_selects_as_python():
    weights = {1: 3000, 2: 1500, 3: 7}  # 4,507 > the 4,096 slots the C expands
    python, native = _selector(weights, False), _selector(weights, True)
    for c in list(range(0, 65536, 13)) + [2999, 3000, 4499, 4500, 4506, 4507]:
        assert native.process(0, _frame(c)) == python.process(0, _frame(c)), c


@pytest.mark.parametrize("watched", [False, True])
def test_members_of_weight_2_31_select_without_a_slot_per_unit(watched):
    """Native only: the Python reference expands weights into a list (2^31 entries)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    big = 2**31 - 1
    pipe = _selector({4: big, 5: big, 6: big}, True)
    if watched:  # the walk over members, with watch ports (all up here)
        prof = pipe.state.resolve_action_profile("sel")
        prof.modify_group(7, [GroupMember(m, big, watch_port=9) for m in (1, 2, 3)])
    for c in (0, 1, 2, 65535):  # c % (3 * big) == c < big: the first member
        assert pipe.process(0, _frame(c)) == [(4, bytes([1, 4]) + c.to_bytes(2, "big"))]
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200 * 1024, f"{grown_kib} KiB"


def test_a_selector_table_without_groups_loads_and_misses():
    """The loader's allocations for zero groups and zero entries."""
    program = load_ir(compile_file(str(P4_DIR / "action_selector.p4")).ir)
    pipe = NativePipeline(program, DeviceState.from_program(program.info))
    assert pipe.process(0, _frame(5)) == []  # the default: drop
