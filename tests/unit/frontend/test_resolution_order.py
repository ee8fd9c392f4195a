"""Names the resolution pass binds before checking (`p4emu.compiler.passes.resolve_names`:
parser states, match kinds) are still reported where the checker reads them: a program
with another error before that point reports the other error first, as it did when the
checker looked these names up itself."""

from __future__ import annotations

import pytest

from p4emu.frontend import compile_file
from p4emu.lang.errors import P4CompileError

from .compile_helpers import v1model_program

_START = "state start { pkt.extract(hdr.h); transition accept; }"

# name -> (program pieces, the first error)
_CASES = {
    # the parser's locals are checked before its state table
    "local_before_duplicate_state": (
        dict(states="bit<8> bad = 16w1; " + _START + " " + _START),
        "type mismatch: expected bit<8>, got bit<16>"),
    # a state's statements are checked before its transition
    "statement_before_undeclared_state": (
        dict(states="state start { pkt.extract(meta); transition nowhere; }"),
        "extract: meta_t is not a header"),
    # a select case's keysets are checked before its target
    "keyset_before_undeclared_state": (
        dict(states="state start { pkt.extract(hdr.h); transition select(hdr.h.a) "
                    "{ 16w1: nowhere; default: accept; } }"),
        "type mismatch: expected bit<8>, got bit<16>"),
    # a key's expression is checked before its match kind
    "key_expression_before_match_kind": (
        dict(locals="table t { key = { nosuch: nosuchkind; } actions = { NoAction; } }",
             body="t.apply();"),
        "nosuch: not declared"),
    # the resolved names' own errors, when nothing comes before them
    "duplicate_state": (dict(states=_START + " " + _START), "start: duplicate parser state"),
    "match_kind": (
        dict(locals="table t { key = { meta.m: nosuchkind; } actions = { NoAction; } }",
             body="t.apply();"),
        "nosuchkind: unknown match kind"),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_first_error(tmp_path, name):
    pieces, message = _CASES[name]
    src = tmp_path / f"{name}.p4"
    src.write_text(v1model_program(**pieces))
    with pytest.raises(P4CompileError) as info:
        compile_file(str(src), (str(tmp_path),))
    assert str(info.value).splitlines()[0].split(": error: ", 1)[1] == message
