"""P4Info is built from the typed IR alone: a ControlPlane written by hand (no compiler,
no ProgramGen) becomes P4Info and ProgramInfo; and the P4Info modules never import the
compiler, nor the IR anything of p4emu but the language's locations."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from p4emu import p4info
from p4emu.ir import (
    Action,
    ActionParam,
    ActionRef,
    Annotation,
    AnnotationToken,
    ControlPlane,
    Counter,
    Digest,
    DigestField,
    MatchField,
    Table,
    find_annotation,
)
from p4emu.ir.annotations import annotation_texts, explicit_id
from p4emu.lang.errors import Loc, P4CompileError
from p4emu.runtime.model import MatchKind

P4EMU = Path(__file__).resolve().parents[3] / "p4emu"


def _anno(name: str, *tokens: AnnotationToken, text: str | None = None) -> Annotation:
    body = ", ".join(t.text for t in tokens)
    return Annotation(name, tokens, text or (f"@{name}({body})" if tokens else f"@{name}"),
                      Loc("x.p4", 1, 1))


def _num(v: int) -> AnnotationToken:
    return AnnotationToken("num", str(v), (v, None, False))


HAND_MADE = ControlPlane(
    actions=(Action("NoAction"),
             Action("C.set", (ActionParam("port", 9, (_anno("id", _num(3)),)),
                              ActionParam("tag", 12)))),
    tables=(Table("C.fwd", keys=(MatchField("h.dst", "lpm", 32),),
                  actions=(ActionRef("C.set"), ActionRef("NoAction", "DEFAULT_ONLY")),
                  size=64, default_action="NoAction", direct_counter="C.hits",
                  annotations=(_anno("my_anno"),)),),
    counters=(Counter("C.hits", 0, "packets_and_bytes", direct=True, direct_table="C.fwd"),),
    digests=(Digest("learn_t", (DigestField("mac", 48), DigestField("e", 32, "error"))),),
    errors=("NoError", "PacketTooShort"),
)


def test_p4info_and_programinfo_from_a_hand_made_control_plane():
    info, p4, aid, digest_ids = p4info.build(HAND_MADE)
    tid = (0x02 << 24) | (p4info.jenkins_one_at_a_time("C.fwd") & 0xFFFFFF)
    (table,) = p4.tables
    assert (table.preamble.id, table.preamble.name, table.preamble.alias) == (tid, "C.fwd", "fwd")
    assert list(table.preamble.annotations) == ["@my_anno"]
    assert [(m.name, m.bitwidth, m.match_type) for m in table.match_fields] == [("h.dst", 32, 3)]
    assert [r.id for r in table.action_refs] == [aid["C.set"], aid["NoAction"]]
    assert [r.scope for r in table.action_refs] == [0, 2]  # TABLE_AND_DEFAULT, DEFAULT_ONLY
    assert table.initial_default_action.action_id == aid["NoAction"]
    assert table.size == 64
    (counter,) = p4.direct_counters
    assert list(table.direct_resource_ids) == [counter.preamble.id]
    assert counter.direct_table_id == tid and counter.spec.unit == 3
    # p4c's field ids: @id(3) kept; the counter steps over the field that had one
    (set_action,) = [a for a in p4.actions if a.preamble.name == "C.set"]
    assert [(p.name, p.id) for p in set_action.params] == [("port", 3), ("tag", 2)]
    assert list(p4.type_info.error.members) == ["NoError", "PacketTooShort"]
    (digest,) = p4.digests
    assert digest_ids == {"learn_t": digest.preamble.id}
    assert [m.name for m in p4.type_info.structs["learn_t"].members] == ["mac", "e"]
    t = info.tables[tid]
    assert t.keys[0].match_kind is MatchKind.LPM and t.direct_counter == "C.hits"
    assert info.counters[counter.preamble.id].direct_table_id == tid


def test_explicit_ids_and_their_errors_come_from_ir_annotations():
    cp = ControlPlane(actions=(Action("a", explicit_id=0x01000007),
                               Action("b", explicit_id=0x01000007)))
    with pytest.raises(P4CompileError, match="already used"):
        p4info.build(cp)
    bad = ControlPlane(actions=(Action("a", params=(ActionParam("x", 8, (_anno("id", _num(0)),)),)),))
    with pytest.raises(P4CompileError, match="0 is not a valid @id value") as e:
        p4info.build(bad)
    assert str(e.value).startswith("x.p4:1:1: error")


def test_annotation_helpers():
    annos = (_anno("id", _num(7)),
             _anno("name", AnnotationToken("str", '"x"', "x")),
             _anno("prio", AnnotationToken("punct", "-"), _num(2), text="@prio(-2)"))
    assert explicit_id(annos) == 7 and explicit_id(()) is None
    assert find_annotation(annos, "name").string() == "x"
    assert find_annotation(annos, "prio").integer() == -2
    assert find_annotation(annos, "nope") is None
    assert annotation_texts(annos, frozenset({"id", "name"})) == ("@prio(-2)",)


def _p4emu_imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("p4emu"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("p4emu"):
            out.add(node.module)
    return out


def test_the_ir_depends_on_nothing_but_itself_and_three_leaves_of_lang():
    # types: typed expressions carry a p4emu.lang.types.Type (a leaf: it imports nothing)
    for path in sorted((P4EMU / "ir").glob("*.py")):
        wrong = {m for m in _p4emu_imports(path) if not m.startswith("p4emu.ir")
                 and m not in ("p4emu.lang.errors", "p4emu.lang.annotation_tokens", "p4emu.lang.types")}
        assert not wrong, f"{path.name} imports {sorted(wrong)}"


def test_p4info_reads_the_ir_never_the_compiler():
    for name in ("p4info.py", "p4info_builders.py", "p4info_fields.py"):
        path = P4EMU / name
        mods = _p4emu_imports(path)
        assert "p4emu.ir" in mods or "p4emu.ir.annotations" in mods, name
        assert not {m for m in mods if m.startswith(("p4emu.compiler", "p4emu.lang.ast"))}, name
        assert ".objects" not in path.read_text(), name
    # outside the compiler nobody reads the generator's object dicts
    readers = [str(p.relative_to(P4EMU)) for p in P4EMU.rglob("*.py")
               if "compiler" not in p.parts and "gen.objects" in p.read_text()]
    assert readers == []
