"""Internal errors while running a packet are not dropped packets.

A division by a zero packet field (BMv2 aborts on it) and a generated block patched to
raise stand for p4emu bugs: the pipeline raises, `p4emu stf` stops with exit status 3 and
the traceback, and a failed v1model assert still only drops the packet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.runtime.device import DeviceState
from p4emu.stf import cli as stf_cli
from p4emu.v1model.pipeline import Pipeline
from p4emu.v1model.support import assertion_failed

DIVIDE = Path(__file__).parent / "programs" / "divide.p4"


@pytest.fixture(scope="module")
def divide():
    return load_ir(compile_file(str(DIVIDE)).ir)


def pipeline(program) -> Pipeline:
    return Pipeline(program, DeviceState.from_program(program.info))


def test_runtime_fault_in_ingress_propagates(divide):
    pl = pipeline(divide)
    assert pl.process(0, b"\x06\x03") == [(1, b"\x02\x03")]
    with pytest.raises(ZeroDivisionError):
        pl.process(0, b"\x06\x00")
    assert pl.process(0, b"\x09\x03") == [(1, b"\x03\x03")]  # usable afterwards


def test_exception_in_a_generated_egress_block_propagates(divide):
    pl = pipeline(divide)

    def broken(hdr, meta, sm):
        raise RuntimeError("generated egress is broken")

    pl._egress = broken
    with pytest.raises(RuntimeError, match="generated egress is broken"):
        pl.process(0, b"\x06\x03")


def test_failed_assert_drops_the_packet_only(divide, caplog):
    pl = pipeline(divide)

    def asserting(hdr, meta, sm):
        assertion_failed("divide.p4(16:9)", "assert")

    pl._ingress = asserting
    assert pl.process(0, b"\x06\x03") == []
    assert "assert failed at divide.p4(16:9)" in caplog.text


def write_stf(tmp_path: Path, text: str) -> str:
    path = tmp_path / "t.stf"
    path.write_text(text)
    return str(path)


def test_stf_internal_error_is_fatal_with_traceback(tmp_path, capsys):
    # the last packet expects nothing: before, the fault dropped it and the test passed
    stf = write_stf(tmp_path, "packet 0 06 03\nexpect 1 02 03\npacket 0 06 00\n")
    assert stf_cli.main([str(DIVIDE), stf]) == stf_cli.INTERNAL_ERROR == 3
    captured = capsys.readouterr()
    assert "Traceback (most recent call last)" in captured.err
    assert "ZeroDivisionError" in captured.err
    assert f"while running {stf}" in captured.err
    assert "internal error of p4emu" in captured.err
    assert "passed" not in captured.out  # no verdict at all


def test_stf_without_internal_error_still_judges(tmp_path, capsys):
    stf = write_stf(tmp_path, "packet 0 06 03\nexpect 1 02 03\n")
    assert stf_cli.main([str(DIVIDE), stf]) == 0
    stf = write_stf(tmp_path, "packet 0 06 03\nexpect 1 02 04\n")
    assert stf_cli.main([str(DIVIDE), stf]) == 1


STACK_INDEX = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> v; }
header i_t { bit<8> idx; }
struct headers { i_t i; h_t[2] h; }
struct meta_t { }
parser P(packet_in pk, out headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.i); pk.extract(hdr.h.next); pk.extract(hdr.h.next);
                  transition accept; }
}
control NoCk(inout headers hdr, inout meta_t m) { apply { } }
control I(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.i.idx = hdr.h[hdr.i.idx].v;   // read through a run-time index
        hdr.h[hdr.i.idx].v = 0x77;        // write through one
    }
}
control E(inout headers hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.i); pk.emit(hdr.h); } }
V1Switch(P(), NoCk(), I(), E(), NoCk(), D()) main;
"""


def test_run_time_stack_index_out_of_range_is_not_an_internal_error(tmp_path):
    # P4 spec §8.18: out of range, reads are undefined and writes ignored (p4c testdata
    # gauntlet_index_5-bmv2.p4, which p4emu used to crash on with an IndexError)
    path = tmp_path / "stack_index.p4"
    path.write_text(STACK_INDEX)
    pl = pipeline(load_ir(compile_file(str(path)).ir))
    # in range: idx 1 reads h[1].v = 0, then h[0] gets 0x77
    assert pl.process(0, b"\x01\x05\x00") == [(1, b"\x00\x77\x00")]
    # out of range: idx 9 reads an invalid element (0 here), the write then goes to h[0]
    assert pl.process(0, b"\x09\x05\x06") == [(1, b"\x00\x77\x06")]
    # idx 1 reads h[1].v = 7, an out-of-range index: the write is ignored
    assert pl.process(0, b"\x01\x05\x07") == [(1, b"\x07\x05\x07")]
