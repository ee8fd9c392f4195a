"""The feature corpus (tests/p4/*.p4 and the suite folders) through p4emu.native: a program
inside the subset gives, for each of its STF files, the same verdict and the same output
packets as the Python pipeline; a program outside it is refused with the reason recorded
in `refusals.py` (nothing is skipped silently)."""

from __future__ import annotations

import re

import pytest

from p4emu.compiler import load_ir
from p4emu.frontend import compile_file
from p4emu.native import NativeUnsupported, load_native
from tests.unit.native.compare import P4_DIR, compare, stf_files
from tests.unit.native.refusals import REFUSED

SUITES = ("checksums_hashes", "control_flow", "expressions", "externs", "language", "parser",
          "tables", "tutorials", "v1model_semantics")
PROGRAMS = sorted(P4_DIR.glob("*.p4")) + sorted(
    p for s in SUITES for p in (P4_DIR / s).glob("*.p4"))
# STF cases whose expectations the Python pipeline does not meet either are compared all
# the same; these are the ones BMv2's CLI refuses commands of (test_stf_suites.py)


def _name(p) -> str:
    return str(p.relative_to(P4_DIR))


def test_corpus_and_table_agree():
    names = {_name(p) for p in PROGRAMS}
    assert set(REFUSED) <= names, set(REFUSED) - names
    assert len(PROGRAMS) - len(REFUSED) >= 40  # the subset's reach, as of this table


@pytest.mark.parametrize("program", PROGRAMS, ids=_name)
def test_program(program):
    name = _name(program)
    if name in REFUSED:
        compiled = load_ir(compile_file(str(program)).ir)
        with pytest.raises(NativeUnsupported) as info:
            load_native(compiled)
        message = re.sub(r" \([^()]*:\d+\)$", "", str(info.value))
        assert message == "outside the native subset: " + REFUSED[name]
        return
    stfs = stf_files(program)
    assert stfs, f"{name} has no STF file"
    compare(program, stfs)
