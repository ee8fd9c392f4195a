"""The BMv2 back-end checks over the typed IR: the deparser's `if`s, `s.next` reads, value
set types and direct meters."""

from __future__ import annotations

import pytest

from p4emu.compiler.passes.check_backend import (
    check_deparser,
    check_direct_meters,
    check_next_reads,
    check_value_set_type,
    ir_nodes,
)
from p4emu.compiler.passes.check_statements import Body
from p4emu.compiler.scope import VarB
from p4emu.ir import declarations as D
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.ir import table_decls as T
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BOOL, BitsT, EnumT, StackT, StructT

from .helpers import fragments


def deparser_body(text: str):
    return fragments().stmt(text, Body("control"))


def test_a_deparser_if_on_a_run_time_condition_is_refused_at_the_if():
    with pytest.raises(P4CompileError, match="IfStatement: not supported within a deparser") as err:
        check_deparser(deparser_body("{ x = 1; { if (b) { x = 2; } } }"))
    assert str(err.value).startswith("t.p4:1:")


def _ifs(body) -> list:
    return [n for n in ir_nodes([body]) if isinstance(n, S.If)]


def test_a_deparser_if_p4c_folds_away_is_accepted():
    literal = deparser_body("{ if (true) { x = 2; } }")  # a literal condition
    [if_] = _ifs(literal)  # the `if` reaches the check, with its condition folded
    assert isinstance(if_.cond, I.Constant) and if_.cond.const is True
    check_deparser(literal)
    empty = deparser_body("{ if (b) { } else { { } } }")  # empty branches
    [if_] = _ifs(empty)
    assert isinstance(if_.cond, I.VarRef)
    check_deparser(empty)
    check_deparser(deparser_body("{ x = 1; }"))
    # one statement in a branch and the run-time `if` is refused
    with pytest.raises(P4CompileError, match="IfStatement: not supported within a deparser"):
        check_deparser(deparser_body("{ if (b) { } else { { x = 1; } } }"))


def _table(meter: str | None) -> T.TableDecl:
    attached = (T.Attached("meters", meter),) if meter else ()
    return T.TableDecl("c.t", (), (), attached=attached, loc="t.p4:3:5")


def test_a_direct_meter_needs_a_read_and_a_table():
    meter = {"name": "c.m", "direct": True, "loc": "t.p4:2:5"}
    check_direct_meters([_table("c.m")], [meter], {"c.m"})
    with pytest.raises(P4CompileError, match="c.t: table with direct meter c.m must have"):
        check_direct_meters([_table("c.m")], [meter], set())
    with pytest.raises(P4CompileError, match="c.m: direct meter is not associated with any table"):
        check_direct_meters([_table(None)], [meter], {"c.m"})


def _with_stack(text: str):
    f = fragments("header h_t { bit<8> f; }")
    f.bind("hs", VarB(StackT(f.scope.lookup("h_t").ty, 4), "hs_py"))
    f.gen.walk.in_parser = True  # `next` is a parser's
    return [f.stmt(text, Body("parser"))]


def test_a_read_or_write_of_a_field_of_next_is_refused_at_the_next():
    with pytest.raises(P4CompileError, match="hs.next uninitialized: next field read") as err:
        check_next_reads(_with_stack("{ x = 1; if (b) { x = hs.next.f; } }"))
    assert str(err.value).startswith("t.p4:1:25: error:")  # the `.next` of `hs.next.f`
    with pytest.raises(P4CompileError, match="hs.next uninitialized"):
        check_next_reads(_with_stack("hs.next.f = 1;"))
    with pytest.raises(P4CompileError, match="hs.next uninitialized"):
        check_next_reads(_with_stack("hs.next = {1};"))  # p4c writes it field by field


def _field_reads(typed) -> list[tuple[str, type]]:
    return [(n.name, type(n.base)) for n in ir_nodes(typed) if isinstance(n, I.Field)]


def test_next_itself_and_its_validity_are_fine():
    typed = _with_stack("{ b = hs.next.isValid(); hs.next.setValid(); x = hs.last.f; }")
    # the check sees both `next`s (not as a field base) and the field read through `last`
    assert [n.name for n in ir_nodes(typed) if isinstance(n, I.StackProperty)] == ["next", "next", "last"]
    assert _field_reads(typed) == [("f", I.StackProperty)]
    check_next_reads(typed)
    typed = _with_stack("{ x = hs[0].f; }")
    assert _field_reads(typed) == [("f", I.StackIndex)]
    check_next_reads(typed)


def test_a_value_set_holds_bits_a_struct_of_bits_or_a_serializable_enum():
    def value_set(t):
        return D.ValueSetDecl("p.vs", t, 4, (), (), "t.p4:3:5")

    ok = StructT("struct", "s_t")
    ok.fields = [("a", BitsT(8)), ("b", BitsT(4))]
    for t in (BitsT(12), ok, EnumT("e_t", ["A"], BitsT(8))):
        check_value_set_type(value_set(t))
    with pytest.raises(P4CompileError, match="p.vs: invalid type parameter for Value Set"):
        check_value_set_type(value_set(BOOL))
    bad = StructT("struct", "n_t")
    bad.fields = [("a", BitsT(8)), ("flag", BOOL)]
    with pytest.raises(P4CompileError, match="but flag is not"):
        check_value_set_type(value_set(bad))
