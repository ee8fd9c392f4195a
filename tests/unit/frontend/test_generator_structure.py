"""The structure of the compiler: the checker `ProgramChecker` (AST -> typed IR) and the
emitter `ProgramGen` (typed IR -> Python) are drivers of passes over one shared
`CompileState`; their dispatch tables.

Each driver composes its passes (`CompilePass`es, none a part of another): a pass reaches
another only through the passes it names (`USES`), which the driver connects; the dispatch
tables (expression and statement node class -> checker, IR node class -> emitter, extern
function name -> checker and emitter) hold plain functions, which must be methods of the
pass that dispatches through them.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from p4emu.compiler.checker import ProgramChecker
from p4emu.compiler.externs import EXTERN_FUNCTIONS, ExternFunctionEmitter
from p4emu.compiler.generated import (
    CompilePass,
    CompileState,
    CompileStateView,
    GeneratedProgram,
    GlobalEnv,
    WalkContext,
    connect_passes,
)
from p4emu.compiler.passes.check_aggregates import AGGREGATE_CHECKERS, AggregateChecker
from p4emu.compiler.passes.check_externs import EXTERN_CHECKS, ExternFunctionChecker
from p4emu.compiler.passes.check_statements import STMT_CHECKERS, StatementChecker
from p4emu.compiler.passes.declare_globals import GLOBAL_DECLARERS, GlobalDeclarer
from p4emu.compiler.passes.emit import EMITTERS, ExpressionEmitter
from p4emu.compiler.passes.emit_operators import OPERATOR_EMITTERS, OperatorEmitter
from p4emu.compiler.passes.emit_statements import STMT_EMITTERS, StatementEmitter
from p4emu.compiler.passes.typecheck import CHECKERS, ExpressionChecker
from p4emu.compiler.program import ProgramGen
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.lexer import tokenize
from p4emu.lang.parser import parse
from p4emu.lang.preprocess import Preprocessor

P4INCLUDE = Path(__file__).resolve().parents[3] / "p4emu" / "p4include"


def _drivers() -> tuple[ProgramGen, ProgramChecker]:
    gen = ProgramGen(A.Program(None, []))
    return gen, gen.checker


def test_the_drivers_compose_their_passes_instead_of_inheriting_them():
    for driver in _drivers():
        assert type(driver).__bases__ == (CompileStateView,)
        passes = driver.passes()
        assert len(passes) > 5
        for p in passes.values():
            assert type(p).__bases__ == (CompilePass,), type(p).__name__
        assert len({type(p) for p in passes.values()}) == len(passes)  # one pass per class
    gen, checker = _drivers()
    # the emitter's passes and the checker's are different classes: the emitter reaches
    # the checks only through its `checker`
    assert not {type(p) for p in gen.passes().values()} & {type(p) for p in checker.passes().values()}


def test_a_pass_holds_the_state_and_the_passes_it_uses_only():
    for driver in _drivers():
        passes = driver.passes()
        for p in passes.values():
            assert set(vars(p)) == {"state", *p.USES}, type(p).__name__
            for name in p.USES:
                assert getattr(p, name) is passes[name]


def test_a_pass_calls_no_pass_it_does_not_use():
    for driver in _drivers():
        names = set(driver.passes())
        for p in driver.passes().values():
            called = set(re.findall(r"self\.(\w+)\.", inspect.getsource(type(p)))) & names
            assert called <= set(p.USES), type(p).__name__


def test_connecting_passes_refuses_a_pass_the_driver_lacks():
    class Lonely(CompilePass):
        USES = ("nowhere",)

    with pytest.raises(AssertionError, match="nowhere"):
        connect_passes({"lonely": Lonely(CompileState())})


def test_dispatch_tables_hold_the_methods_of_the_pass_that_dispatches():
    for owner, table in ((ExpressionChecker, CHECKERS), (AggregateChecker, AGGREGATE_CHECKERS),
                         (StatementChecker, STMT_CHECKERS), (ExternFunctionChecker, EXTERN_CHECKS),
                         (GlobalDeclarer, GLOBAL_DECLARERS), (ExpressionEmitter, EMITTERS),
                         (OperatorEmitter, OPERATOR_EMITTERS), (StatementEmitter, STMT_EMITTERS),
                         (ExternFunctionEmitter, EXTERN_FUNCTIONS)):
        for key, fn in table.items():
            assert getattr(owner, fn.__name__) is fn, key


def test_every_extern_function_of_core_and_v1model_has_a_checker_and_an_emitter():
    text = (P4INCLUDE / "core.p4").read_text() + (P4INCLUDE / "v1model.p4").read_text()
    declared = set(re.findall(r"^\s*extern\s+\w+\s+(\w+)\s*[<(]", text, re.M))
    assert declared == set(EXTERN_CHECKS) == set(EXTERN_FUNCTIONS)


def test_the_checker_and_the_emitter_share_one_state():
    gen = ProgramGen(A.Program(None, []))
    passes = [*gen.passes().values(), *gen.checker.passes().values()]
    assert isinstance(gen.state, CompileState) and gen.checker.state is gen.state
    assert all(p.state is gen.state for p in passes)
    assert isinstance(gen.out, GeneratedProgram) and isinstance(gen.env, GlobalEnv)
    assert isinstance(gen.walk, WalkContext)
    gen.out = gen.out.scratch()  # a block main does not use: every pass sees the copy too
    assert gen.checker.out is gen.out and all(p.out is gen.out for p in passes)
    assert [gen.next_id(), gen.checker.next_id(), gen.exprs.next_id()] == [1, 2, 3]  # one name source


def test_scratch_outputs_drop_the_blocks_results_and_share_the_programs():
    out = GeneratedProgram()
    out.code.append("x = 1")
    out.objects["tables"].append({"name": "t"})
    out.actions_by_name["a"] = object()
    s = out.scratch()
    assert s.code == [] and s.objects["tables"] == [] and s.bindings == {} and s.links == {}
    assert s.dispatch_tables == [] and s.digest_types == {} and s.anon_field_lists == {} and s.typed == []
    assert s.actions_by_name == out.actions_by_name and s.actions_by_name is not out.actions_by_name
    for shared in ("used_field_lists", "direct_meter_writers", "errors",
                   "struct_types", "p4rt_enums", "roles", "header_types", "main_annotations"):
        assert getattr(s, shared) is getattr(out, shared), shared


UNUSED_BLOCK = """
#include <v1model.p4>
header h_t { bit<8> f; }
struct H { h_t h; }
struct M { }
parser P(packet_in pk, out H h, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(h.h); transition accept; } }
control V(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
    action a() { }
    table used_t { key = { h.h.f : exact; } actions = { a; } }
    apply { used_t.apply(); } }
control Unused(inout H h, inout M m, inout standard_metadata_t sm) {
    action b() { }
    table unused_t { key = { h.h.f : exact; } actions = { b; } }
    apply { unused_t.apply(); } }
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control C(inout H h, inout M m) { apply { } }
control D(packet_out pk, in H h) { apply { pk.emit(h.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _generated(tmp_path, source: str) -> ProgramGen:
    path = tmp_path / "prog.p4"
    path.write_text(source)
    gen = ProgramGen(parse(tokenize(Preprocessor().run_file(str(path)))))
    gen.run()
    return gen


def test_a_block_main_does_not_use_is_checked_but_leaves_no_output(tmp_path):
    gen = _generated(tmp_path, UNUSED_BLOCK)
    assert [t.name for t in gen.out.objects["tables"]] == ["I.used_t"]
    assert "I.a" in gen.out.actions_by_name and "Unused.b" not in gen.out.actions_by_name
    for p in [*gen.passes().values(), *gen.checker.passes().values()]:  # the walk kept no state
        assert set(vars(p)) == {"state", *p.USES}, type(p).__name__
    assert set(gen.out.roles) == {"parser", "verify", "ingress", "egress", "compute", "deparser"}
    assert "Unused" not in gen.out.module_source()
    with pytest.raises(P4CompileError, match="nope"):  # but it is type-checked
        _generated(tmp_path, UNUSED_BLOCK.replace("apply { unused_t.apply(); }",
                                                  "apply { nope(); }"))


def test_struct_classes_come_in_declaration_order_with_bits_once_after_the_first_header(tmp_path):
    source = UNUSED_BLOCK.replace("header h_t { bit<8> f; }", """
struct pair_t { bit<4> a; bit<4> b; }
header h_t { bit<8> f; pair_t p; }
header g_t { pair_t q; }""").replace("struct H { h_t h; }", "struct H { h_t h; g_t g; }")
    gen = _generated(tmp_path, source)
    names = [t.name for t in gen.out.struct_types]
    assert names[-5:] == ["pair_t", "h_t", "g_t", "H", "M"]  # after v1model.p4's
    src = gen.out.module_source()
    classes = [src.index(f"p4name = {n!r}") for n in names]
    assert classes == sorted(classes)
    classes = classes[-5:]
    pair_py = gen.out.struct_types[-5].py
    bits = [m.start() for m in re.finditer(rf"\b{pair_py}\.from_bits = ", src)]
    assert len(bits) == 1 and classes[1] < bits[0] < classes[2]  # after h_t, not again after g_t
    with pytest.raises(P4CompileError, match="not a multiple of 8"):  # checked when declared
        _generated(tmp_path, source.replace("bit<8> f; pair_t p;", "bit<7> f; pair_t p;"))


def test_generated_parser_errors_are_named_with_core_p4s_error_codes(tmp_path):
    from p4emu.v1model.support import generated_globals

    body = (P4INCLUDE / "core.p4").read_text().split("error {", 1)[1].split("}", 1)[0]
    order = [m.strip() for m in body.split(",")]
    assert order[:7] == ["NoError", "PacketTooShort", "NoMatch", "StackOutOfBounds", "HeaderTooShort",
                         "ParserTimeout", "ParserInvalidArgument"]
    names = {"PacketTooShort": "PACKET_TOO_SHORT", "HeaderTooShort": "HEADER_TOO_SHORT",
             "ParserTimeout": "PARSER_TIMEOUT", "ParserInvalidArgument": "PARSER_INVALID_ARGUMENT"}
    g = generated_globals()
    assert {n: g[c] for n, c in names.items()} == {n: order.index(n) for n in names}
    src = _generated(tmp_path, UNUSED_BLOCK).out.module_source()
    used = set(re.findall(r"raise ParserError\((\w+)\)", src))
    assert used == {"PACKET_TOO_SHORT", "PARSER_INVALID_ARGUMENT", "PARSER_TIMEOUT"}


def test_the_whole_program_is_checked_into_typed_ir_before_anything_is_emitted(tmp_path):
    from p4emu.ir import blocks as B

    path = tmp_path / "prog.p4"
    path.write_text(UNUSED_BLOCK)
    gen = ProgramGen(parse(tokenize(Preprocessor().run_file(str(path)))))
    program = gen.checker.check_program(gen.program)
    assert gen.out.code == [] and gen.out.objects["tables"] == [] and gen.out.bindings == {}
    assert isinstance(program, B.Program) and [r for r, _ in program.roles] == [
        "parser", "verify", "ingress", "egress", "compute", "deparser"]
    ingress = dict(program.roles)["ingress"]
    action, table = ingress.locals
    assert isinstance(action, B.LocalAction) and action.binding.checked and action.binding.py == ""
    assert isinstance(table, B.LocalTable) and table.table.name == "I.used_t"
    assert ingress.body is not None and [b.name for b in program.unused] == ["Unused"]
    gen.emit_program(program)
    assert [t.name for t in gen.out.objects["tables"]] == ["I.used_t"] and action.binding.py.startswith("A_")
