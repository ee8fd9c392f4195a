"""Every tests/p4 program with its STF file, run through `p4emu stf`'s runner.

The expected outputs in the STF files are what BMv2 simple_switch produces (reasoned from
/work/shared/V1MODEL-NOTES.md), not recordings of p4emu.
"""

from pathlib import Path

import pytest

from p4emu.stf.cli import build_device, run_files
from p4emu.stf.parser import parse_stf

CORPUS = Path(__file__).resolve().parents[2] / "p4"
PROGRAMS = sorted(CORPUS.glob("*.p4"))

# p4emu defects found by this corpus (see the runtime engineer's report); strict, so a fix
# shows up as XPASS and the entry must then be removed.
KNOWN_P4EMU_BUGS: dict[str, str] = {}


def test_corpus_is_complete():
    assert len(PROGRAMS) >= 25
    for program in PROGRAMS:
        stf = program.with_suffix(".stf")
        assert stf.is_file(), f"{program.name} has no STF file"
        commands = parse_stf(stf.read_text(), str(stf))
        assert any(type(c).__name__ == "Expect" for c in commands), stf.name


def _params():
    for program in PROGRAMS:
        marks = []
        if program.stem in KNOWN_P4EMU_BUGS:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_P4EMU_BUGS[program.stem]))
        yield pytest.param(program, id=program.stem, marks=marks)


@pytest.mark.parametrize("program", list(_params()))
def test_corpus_program(program: Path):
    pytest.importorskip("p4emu.v1model.pipeline")
    fresh = build_device(str(program), [], {})
    results, errors = run_files(fresh, [str(program.with_suffix(".stf"))])
    assert not errors, errors
    [result] = results
    assert result.ok, "\n".join(result.report_lines())
    assert result.passed > 0


def test_wrong_expectation_fails_end_to_end(tmp_path):
    pytest.importorskip("p4emu.v1model.pipeline")
    program = CORPUS / "exact_match.p4"
    wrong = tmp_path / "wrong.stf"
    wrong.write_text("add t hdr.h.a:1 set_b_fwd(b:0x11, port:1)\n"
                     "packet 0 01 00 0000\n"
                     "expect 1 01 12 0000\n")  # b is 0x11, not 0x12
    misrouted = tmp_path / "misrouted.stf"
    misrouted.write_text("add t hdr.h.a:1 set_b_fwd(b:0x11, port:1)\n"
                         "packet 0 01 00 0000\n"
                         "expect 2 01 11 0000\n")  # it leaves on port 1 (not watched)
    results, errors = run_files(build_device(str(program), [], {}), [str(wrong),
                                                                     str(misrouted)])
    assert not errors
    assert [r.ok for r in results] == [False, False]
    assert "port 1: expected 01120000 (line 3), got 01110000" in results[0].report_lines()[0]
    assert results[1].failed == 1  # nothing on port 2; port 1 is not watched
