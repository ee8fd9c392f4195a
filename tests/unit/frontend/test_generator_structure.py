"""The structure of the code generator `ProgramGen`: its mixins and dispatch tables.

`ProgramGen` is assembled from mixins that share one namespace, so a method defined in
two of them would silently hide one (whichever comes first in the MRO); the dispatch
tables (expression and statement node class -> generator, extern function name ->
generator) hold plain functions, which must be the methods `ProgramGen` really has.
"""

from __future__ import annotations

import re
from pathlib import Path

from p4emu.compiler.exprs import EXPR_GENERATORS
from p4emu.compiler.externs import EXTERN_FUNCTIONS
from p4emu.compiler.program import ProgramGen
from p4emu.compiler.stmts import STMT_GENERATORS

P4INCLUDE = Path(__file__).resolve().parents[3] / "p4emu" / "p4include"


def test_no_two_mixins_define_the_same_name():
    owners: dict[str, list[str]] = {}
    for cls in ProgramGen.__mro__[1:-1]:  # the mixins, without ProgramGen and object
        for name in vars(cls):
            if not name.startswith("__"):
                owners.setdefault(name, []).append(cls.__name__)
    assert {n: c for n, c in owners.items() if len(c) > 1} == {}


def test_dispatch_tables_hold_the_generators_methods():
    for table in (EXPR_GENERATORS, STMT_GENERATORS, EXTERN_FUNCTIONS):
        for key, gen in table.items():
            assert getattr(ProgramGen, gen.__name__) is gen, key


def test_every_extern_function_of_core_and_v1model_has_a_generator():
    text = (P4INCLUDE / "core.p4").read_text() + (P4INCLUDE / "v1model.p4").read_text()
    declared = set(re.findall(r"^\s*extern\s+\w+\s+(\w+)\s*[<(]", text, re.M))
    assert declared == set(EXTERN_FUNCTIONS)
