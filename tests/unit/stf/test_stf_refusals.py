"""STF commands the switch refuses, as p4c's BMv2 driver meets them, and initial entries.

* Commands the switch refuses (duplicate entry, full table, const default, locked table,
  value too wide, register index past the end) are warnings that leave the run going, as
  simple_switch_CLI errors do under p4c's driver; names the driver cannot resolve stay
  errors.
* Initial entries lock the table; their BMv2 priorities follow the JSON p4c writes.

Differences fixed in p4emu, each pinned by a case here or in tests/p4/tables (run by the
STF harness): refused CLI commands aborted the run (f2_refused, f2_entries), tables with
plain `entries` accepted adds (f2_entries), `priority = n:` reordered initial entries and
per-entry `const` did not parse (f2_entries), `us.next.<member>` on a header-union stack
took two elements (parser/f2_unionstack), and a direct meter's colour reached its target
only through the action calling read() (externs/f2_dmeter).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from p4emu.frontend import compile_file
from p4emu.runtime.errors import ReadOnly
from p4emu.runtime.match import Ternary
from p4emu.runtime.tables import TableEntry
from p4emu.stf.cli import build_device, run_files

TABLES = Path(__file__).resolve().parents[2] / "p4" / "tables"

_DEVICES: dict[Path, object] = {}


def _device(program: Path):
    if program not in _DEVICES:
        _DEVICES[program] = build_device(str(program), [], {})
    return _DEVICES[program]


# --------------------------------------------------------------------------------------
# STF driver behaviour around refused commands (p4emu/stf/runner.py)


def _run_text(tmp_path: Path, program: str, text: str):
    stf = tmp_path / "t.stf"
    stf.write_text(text)
    results, errors = run_files(_device(TABLES / f"{program}.p4"), [str(stf)])
    return results, errors


@pytest.mark.parametrize("line", [
    "add small k:1 s1(v:0x99)",          # duplicate of the entry added first
    "add small k:0x100 s1(v:1)",         # key wider than bit<8>
    "add small k:2 s1(v:0x100)",         # argument wider than bit<8>
    "setdefault fixed_default s2(v:1)",  # const default action
    "add with_initial 1 k:0x01 s4(v:1)",  # table loaded with (non-const) entries
    "register_write I.reg 4 1",           # index past the end
    "register_write nosuch 0 1",          # simple_switch_CLI cannot resolve the name
])
def test_switch_refusal_is_a_warning_and_the_run_goes_on(tmp_path: Path, line: str):
    results, errors = _run_text(tmp_path, "f2_refused", f"""
add small k:1 s1(v:0x11)
{line}
packet 0 01 00 00 00 00 00
expect 1 01 11 d2 c1 00 00 $
""")
    assert not errors
    [result] = results
    assert result.ok, "\n".join(result.report_lines())
    assert len(result.rejected) == 1 and ":3: warning:" in result.rejected[0]


@pytest.mark.parametrize("line", [
    "add nosuch k:1 s1(v:1)",       # unknown table: the driver raises
    "add small nosuch:1 s1(v:1)",   # unknown key field
    "add small k:1 nosuch(v:1)",    # unknown action
    "add small k:1 s1(w:1)",        # unknown parameter
])
def test_driver_level_errors_stay_fatal(tmp_path: Path, line: str):
    results, errors = _run_text(tmp_path, "f2_refused", f"{line}\npacket 0 01\n")
    assert not results and len(errors) == 1 and ":1: error:" in errors[0]


def test_initial_entries_lock_the_table_for_the_control_plane():
    state, _process = _device(TABLES / "f2_refused.p4")()
    table = state.resolve_table("with_initial")
    assert [e.is_const for e in table.entries()] == [True]
    with pytest.raises(ReadOnly):
        table.insert(TableEntry((Ternary(1, 0xFF),), priority=5, action=table.default))


# --------------------------------------------------------------------------------------
# front end: P4 1.2.4 entry syntax and what reaches BMv2 / P4Info


def test_entry_priorities_follow_the_bmv2_json():
    r = compile_file(str(TABLES / "f2_entries.p4"))
    by_position = r.info.by_name("tables", "I.by_position")
    by_annotation = r.info.by_name("tables", "I.by_annotation")
    # `priority = n:` and per-entry `const` parse; the position is what p4c writes
    assert [e.priority for e in by_position.const_entries] == [1, 2, 3]
    assert [e.priority for e in by_annotation.const_entries] == [30, 20, 10]
    tables = {t.preamble.name: t for t in r.p4info.tables}
    assert tables["I.by_position"].has_initial_entries
    assert not tables["I.by_position"].is_const_table
    assert tables["I.by_annotation"].is_const_table
