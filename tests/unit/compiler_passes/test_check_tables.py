"""The table checker: a `table` becomes a typed `TableDecl`: keys typed, named and of known
match kinds, the actions list with bound directional arguments, `default_action` and
entries as constant action calls of listed actions, keysets typed against the keys."""

from __future__ import annotations

import pytest

from p4emu.ir import expressions as I
from p4emu.ir import table_decls as T
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT
from p4emu.runtime import match as M

from .helpers import declaring

DECLS = """
match_kind { exact, ternary, lpm, range, optional, selector }
action NoAction() { }
action set(bit<8> v) { }
action bump(inout bit<8> c, bit<4> n) { }
"""


def table(body: str) -> T.TableDecl:
    gen, scope = declaring(DECLS + "control c() { table t { " + body + " } apply { } }")
    decl = gen.program.decls[-1].locals[0]
    return gen.checker.tables.check_table(decl, "c.t", scope)


def test_keys_are_typed_and_named_as_p4c_names_them():
    t = table("key = { x : exact; w & 0xff0 : ternary @name(\"masked\"); } actions = { set; }")
    x, w = t.keys
    assert (x.name, x.match_kind, x.bitwidth) == ("x", "exact", 8)
    assert isinstance(x.value, I.VarRef) and x.value.type == BitsT(8)
    assert (w.name, w.bitwidth) == ("masked", 16) and isinstance(w.value, I.Binary)


def test_a_key_of_an_unknown_match_kind_errors_at_the_key():
    with pytest.raises(P4CompileError, match="fuzzy: unknown match kind") as err:
        table("key = { x : fuzzy; } actions = { set; }")
    assert str(err.value).startswith("t.p4:6:")
    with pytest.raises(P4CompileError, match="more than one lpm key field"):
        table("key = { x : lpm; w : lpm; } actions = { set; }")


def test_listed_actions_bind_their_directional_arguments_and_noaction_is_the_default():
    t = table("key = { x : exact; } actions = { bump(x); set; }")
    bump, set_, noaction = t.actions
    (c,) = bump.args
    assert (bump.name, c.direction, c.type) == ("bump", "inout", BitsT(8)) and isinstance(c.value, I.VarRef)
    assert set_.args == () and not set_.implicit
    assert noaction.name == "NoAction" and noaction.implicit  # p4c adds it, default only
    assert [a.name for a in noaction.annotations] == ["defaultonly"]
    assert t.default_action.name == "NoAction" and t.default_action.args == ()
    with pytest.raises(P4CompileError, match="expected 1 directional arguments"):
        table("actions = { bump; }")


def test_default_action_data_are_constants_of_the_parameters_types():
    t = table("actions = { set; bump(x); } const default_action = set(300);")
    assert t.default_action.name == "set" and t.default_action.args == (300 & 0xff,) and t.const_default
    assert [a.name for a in t.actions] == ["set", "bump"]  # no NoAction added
    with pytest.raises(P4CompileError, match="set: not in the actions of table t"):
        table("actions = { bump(x); } default_action = set(1);")
    with pytest.raises(P4CompileError, match="expected a compile-time constant"):
        table("actions = { set; } default_action = set(x);")


def test_const_entries_are_typed_against_the_keys():
    t = table("key = { x : exact; w : lpm; } actions = { set; } size = 64; const entries = {"
              " (1, 0x0a00 &&& 0xff00) : set(2); (2, _) : set(3); }")
    assert t.size == 64 and t.is_const
    first, second = t.entries
    assert first.match == (M.Exact(1), M.Lpm(0x0a00, 8)) and first.action.args == (2,)
    assert second.match == (M.Exact(2), None) and (first.priority, second.priority) == (1, 2)
    with pytest.raises(P4CompileError, match="lpm mask is not a prefix"):
        table("key = { w : lpm; } actions = { set; } const entries = { 0x0a00 &&& 0x0f0f : set(1); }")
    with pytest.raises(P4CompileError, match="entry has 1 keys, table t has 2"):
        table("key = { x : exact; w : exact; } actions = { set; } const entries = { 1 : set(1); }")
    with pytest.raises(P4CompileError, match="exact key cannot be a don't-care"):
        table("key = { x : exact; } actions = { set; } const entries = { _ : set(1); }")



PROFILES = """
enum HashAlgorithm { crc32, random }
extern action_selector { action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth); }
"""


def selector_table(algorithm: str) -> T.TableDecl:
    gen, scope = declaring(DECLS + PROFILES + "control c() { table t { key = { x : selector; } actions = { set; } "
                           f"implementation = action_selector(HashAlgorithm.{algorithm}, 32w64, 14); }} apply {{ }} }}")
    return gen.checker.tables.check_table(gen.program.decls[-1].locals[0], "c.t", scope)


def test_an_extern_made_in_a_property_is_a_checked_instance_named_after_the_table():
    (impl,) = selector_table("crc32").attached
    assert (impl.kind, impl.name, impl.inline.kind) == ("implementation", "c.t", "action_selector")
    assert [a.const for a in impl.inline.args[1:]] == [64, 14]
    with pytest.raises(P4CompileError, match="HashAlgorithm.random"):
        selector_table("random")
