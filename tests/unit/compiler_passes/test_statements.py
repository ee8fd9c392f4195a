"""The statement checker (AST statement + scope -> typed statement IR) and the statement
emitter (typed statement -> Python lines)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p4emu.compiler.passes.check_statements import Body
from p4emu.compiler.scope import Fn, VarB
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.ir import table_decls as TD
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, ObjectT

from .helpers import fragments

DECLS = """
const bit<8> C = 7;
action a() { }
action other() { }
"""


def check(text: str, kind: str = "control"):
    f = fragments(DECLS)
    return f.stmt(text, Body(kind)), f


def emitted(text: str) -> list[str]:
    s, f = check(text)
    fn = Fn(f.gen.next_id)
    f.gen.stmts.emit(s, fn)
    return fn.lines


def test_assigning_to_an_in_parameter_or_a_constant_is_a_located_error():
    with pytest.raises(P4CompileError, match="cannot assign to k: not writable") as err:
        check("{ x = 1;  k = x; }")
    assert str(err.value.loc) == "t.p4:1:11"
    with pytest.raises(P4CompileError, match="cannot assign to C"):
        check("C = 1;")


def test_an_assignment_converts_its_value_to_the_targets_type():
    s, _ = check("w = x ++ 8w1;")
    assert isinstance(s, S.Assign) and isinstance(s.target, I.VarRef) and s.value.type == BitsT(16)
    with pytest.raises(P4CompileError, match="type mismatch: expected bit<8>, got bit<16>"):
        check("x = w;")


def test_a_blocks_local_is_scoped_to_the_block():
    s, f = check("{ bit<8> z = 1; x = z; }")
    decl, assign = s.stmts
    assert isinstance(decl, S.VarDecl) and decl.init.const == 1
    assert assign.value.binding is decl.binding  # `z` is the variable declared
    with pytest.raises(P4CompileError, match="z: not declared"):
        f.expr("z")


def test_a_switch_on_action_run_takes_the_applied_tables_actions_as_labels():
    f = fragments(DECLS)
    listed = TD.ListedAction("a", None, (), (), None)
    f.gen.env.declared.tables.append(TD.TableDecl("c.t", (), (listed,)))
    run = ObjectT("action_run", "action_run", SimpleNamespace(full_name="c.t"))
    f.bind("run", VarB(run, "r_py"))
    s = f.stmt("switch (run) { a: { x = 1; } default: { } }", Body("control"))
    assert isinstance(s, S.Switch) and s.value.type is run
    (label,), (default,) = (c.labels for c in s.cases)
    assert isinstance(label, I.CallableRef) and label.binding.full_name == "a" and default is None
    with pytest.raises(P4CompileError, match="other is not a legal label .* not an action of table c.t"):
        f.stmt("switch (run) { other: { } }", Body("control"))
    with pytest.raises(P4CompileError, match="switch statements are not allowed in actions"):
        f.stmt("switch (run) { a: { } }", Body("action"))


def test_where_exit_return_and_break_may_appear():
    with pytest.raises(P4CompileError, match="exit statements are not allowed in functions"):
        check("exit;", "function")
    with pytest.raises(P4CompileError, match="return statements are not allowed in parsers"):
        check("return;", "parser")
    with pytest.raises(P4CompileError, match="break outside a loop"):
        check("break;")


def test_if_else_emits_python_if_else_with_pass_for_an_empty_branch():
    assert emitted("if (b) { x = 1; } else { }") == ["    if b_py:", "        x_py = 1", "    else:",
                                                    "        pass"]


def test_an_assignment_to_a_slice_writes_the_bits_into_the_base():
    assert emitted("x[5:2] = 4w3;") == ["    x_py = ((x_py & 195) | ((3 << 2) & 60))"]


def test_a_local_variable_gets_a_fresh_python_name():
    assert emitted("{ bit<8> z = x; x = z; }") == ["    v_z_1 = x_py", "    x_py = v_z_1"]
