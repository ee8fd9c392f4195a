"""The structure of the code generator `ProgramGen`: its mixins, its state and dispatch tables.

`ProgramGen` is assembled from mixins that share one namespace, so a method defined in
two of them would silently hide one (whichever comes first in the MRO); the dispatch
tables (expression and statement node class -> checker, IR node class -> emitter, extern
function name -> checker and emitter) hold plain functions, which must be the methods `ProgramGen` really has.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p4emu.compiler.externs import EXTERN_FUNCTIONS
from p4emu.compiler.generated import GeneratedProgram, GlobalEnv, WalkContext
from p4emu.compiler.passes.check_externs import EXTERN_CHECKS
from p4emu.compiler.passes.check_statements import STMT_CHECKERS
from p4emu.compiler.passes.emit import EMITTERS
from p4emu.compiler.passes.emit_statements import STMT_EMITTERS
from p4emu.compiler.passes.typecheck import CHECKERS
from p4emu.compiler.program import ProgramGen
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.lexer import tokenize
from p4emu.lang.parser import parse
from p4emu.lang.preprocess import Preprocessor

P4INCLUDE = Path(__file__).resolve().parents[3] / "p4emu" / "p4include"


def test_no_two_mixins_define_the_same_name():
    owners: dict[str, list[str]] = {}
    for cls in ProgramGen.__mro__[1:-1]:  # the mixins, without ProgramGen and object
        for name in vars(cls):
            if not name.startswith("__"):
                owners.setdefault(name, []).append(cls.__name__)
    assert {n: c for n, c in owners.items() if len(c) > 1} == {}


def test_dispatch_tables_hold_the_generators_methods():
    for table in (CHECKERS, EMITTERS, STMT_CHECKERS, STMT_EMITTERS, EXTERN_CHECKS, EXTERN_FUNCTIONS):
        for key, gen in table.items():
            assert getattr(ProgramGen, gen.__name__) is gen, key


def test_every_extern_function_of_core_and_v1model_has_a_checker_and_an_emitter():
    text = (P4INCLUDE / "core.p4").read_text() + (P4INCLUDE / "v1model.p4").read_text()
    declared = set(re.findall(r"^\s*extern\s+\w+\s+(\w+)\s*[<(]", text, re.M))
    assert declared == set(EXTERN_CHECKS) == set(EXTERN_FUNCTIONS)


def test_the_generators_state_is_its_outputs_tables_and_walk_context():
    gen = ProgramGen(A.Program(None, []))
    assert set(vars(gen)) == {"program", "global_scope", "counter", "out", "env", "walk"}
    assert isinstance(gen.out, GeneratedProgram) and isinstance(gen.env, GlobalEnv)
    assert isinstance(gen.walk, WalkContext)
    # no mixin sets an attribute of its own on the generator
    for cls in ProgramGen.__mro__[1:-1]:
        assert not getattr(cls, "__annotations__", {}), cls.__name__


def test_scratch_outputs_drop_the_blocks_results_and_share_the_programs():
    out = GeneratedProgram()
    out.code.append("x = 1")
    out.objects["tables"].append({"name": "t"})
    out.actions_by_name["a"] = object()
    s = out.scratch()
    assert s.code == [] and s.objects["tables"] == [] and s.bindings == {} and s.links == {}
    assert s.dispatch_tables == [] and s.digest_types == {} and s.anon_field_lists == {} and s.typed == []
    assert s.actions_by_name == out.actions_by_name and s.actions_by_name is not out.actions_by_name
    for shared in ("struct_code", "used_field_lists", "direct_meter_writers", "errors",
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
    assert set(gen.out.roles) == {"parser", "verify", "ingress", "egress", "compute", "deparser"}
    assert "Unused" not in gen.out.module_source()
    with pytest.raises(P4CompileError, match="nope"):  # but it is type-checked
        _generated(tmp_path, UNUSED_BLOCK.replace("apply { unused_t.apply(); }",
                                                  "apply { nope(); }"))
