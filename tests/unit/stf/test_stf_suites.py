"""The one STF harness: every STF test under tests/p4 runs through `p4emu stf`'s runner.

tests/p4/*.p4 is the feature corpus (one ``NAME.stf`` per program); the sub-folders hold
suites by subject (parser, tables, expressions, control_flow, externs, checksums_hashes,
v1model_semantics, language, tutorials). In every folder ``NAME.stf`` and
``NAME.<case>.stf`` both run ``NAME.p4``. The expected outputs are what BMv2 simple_switch
produces, worked out from its and p4c's sources (docs/v1model.md, docs/stf.md)
and from stand-alone models of the hash/checksum arithmetic, never recorded from p4emu.
tests/p4/mrc (the MRC data plane) and tests/p4/switch (switch-process programs) have
harnesses of their own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4emu.stf.cli import build_device, run_files
from p4emu.stf.parser import parse_stf

P4_DIR = Path(__file__).resolve().parents[2] / "p4"
SUITES = ("checksums_hashes", "control_flow", "expressions", "externs", "language", "parser",
          "tables", "tutorials", "v1model_semantics")
OTHER_HARNESSES = ("mrc", "switch")
FOLDERS = (P4_DIR, *(P4_DIR / name for name in SUITES))
STFS = sorted(stf for folder in FOLDERS for stf in folder.glob("*.stf"))

# STF cases whose commands BMv2's CLI refuses on purpose (warnings; the run goes on):
# case -> number of refused commands
# (f4_meter: a committed rate above the peak rate, refused as BMv2's Meter::set_rate does)
EXPECTED_REFUSALS = {"tables/f2_refused": 7, "tables/f2_entries": 1,
                     "v1model_semantics/f4_meter": 1}


# programs that ship in p4emu rather than in the corpus: `p4emu bench`'s scenario
SHIPPED = {"bench_l3": Path(__file__).resolve().parents[3] / "p4emu" / "bench_l3.p4"}


def program_for(stf: Path) -> Path:
    stem = stf.name.split(".")[0]
    if stf.parent == P4_DIR and stem in SHIPPED:
        return SHIPPED[stem]
    return stf.with_name(stem + ".p4")


def case_name(stf: Path) -> str:
    """`folder/NAME[.case]` (bare `NAME` for the top-level corpus)."""
    stem = stf.name[: -len(".stf")]
    return stem if stf.parent == P4_DIR else f"{stf.parent.name}/{stem}"


def test_every_folder_has_a_harness():
    folders = {p.name for p in P4_DIR.iterdir() if p.is_dir()}
    assert folders == set(SUITES) | set(OTHER_HARNESSES)


def test_suites_are_complete():
    assert len(STFS) >= 150
    for folder in FOLDERS:
        for program in folder.glob("*.p4"):
            assert any(program_for(s) == program for s in STFS), f"{program} has no STF"
    for stf in STFS:
        assert program_for(stf).is_file(), stf
        commands = parse_stf(stf.read_text(), str(stf))
        assert any(type(c).__name__ == "Expect" for c in commands), stf


_DEVICES: dict[Path, object] = {}


def _device(program: Path):
    """Compiled once per program; each STF file still gets a fresh device."""
    if program not in _DEVICES:
        _DEVICES[program] = build_device(str(program), [], {})
    return _DEVICES[program]


PROGRAMS = sorted(p for folder in FOLDERS for p in folder.glob("*.p4"))
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STATEFUL = re.compile(r"\b(?:direct_)?(register|counter|meter)\s*(?:<[^;{}]*?>)?\s*"
                       r"\([^;{}]*\)\s*(\w+)\s*;")


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


@pytest.mark.parametrize("program", PROGRAMS, ids=[case_name(p.with_suffix(".stf")) for p in PROGRAMS])
def test_program_compiles(program: Path):
    """A compile error shows here on its own, not as the failure of each of its STF files;
    and the control plane the compiler gives the program is the one its source declares,
    read from the source text: exactly the tables it applies, and its registers, counters
    and meters (a table's inline direct counter has no name in the source, hence <=)."""
    state, _process = _device(program)()
    info = state.info
    source = _COMMENTS.sub("", program.read_text())
    applied = set(re.findall(r"\btable\s+(\w+)", source)) & \
        set(re.findall(r"\b(\w+)\s*\.\s*apply\s*\(", source))
    assert {_short(t.name) for t in info.tables.values()} == applied
    compiled = {(kind, _short(x.name)) for kind, objs in (
        ("register", info.registers), ("counter", info.counters), ("meter", info.meters))
        for x in objs.values()}
    assert set(_STATEFUL.findall(source)) <= compiled


@pytest.mark.parametrize("stf", STFS, ids=[case_name(s) for s in STFS])
def test_stf(stf: Path):
    results, errors = run_files(_device(program_for(stf)), [str(stf)])
    assert not errors, errors
    [result] = results
    assert result.ok, "\n".join(result.report_lines())
    assert result.passed > 0
    assert len(result.rejected) == EXPECTED_REFUSALS.get(case_name(stf), 0), result.rejected


def test_wrong_expectation_fails_end_to_end(tmp_path):
    program = P4_DIR / "exact_match.p4"
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
