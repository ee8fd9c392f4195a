"""A generator with a scope of a few variables, and P4 expressions parsed from text."""

from __future__ import annotations

from p4emu.compiler.passes.resolve_names import resolve_names
from p4emu.compiler.program import ProgramGen
from p4emu.compiler.scope import Scope, VarB
from p4emu.lang import ast as A
from p4emu.lang.lexer import tokenize
from p4emu.lang.parser import Parser
from p4emu.lang.preprocess import SourceLine
from p4emu.lang.types import BOOL, BitsT


def parse_expr(text: str) -> A.Expr:
    return Parser(tokenize([SourceLine("t.p4", 1, text)])).expression()


def generator() -> tuple[ProgramGen, Scope]:
    """`x`: bit<8>, `y`: int<8>, `w`: bit<16>, `b`: bool (run-time values)."""
    gen = ProgramGen(A.Program(None, []))
    scope = Scope(gen.global_scope)
    for name, t in (("x", BitsT(8)), ("y", BitsT(8, True)), ("w", BitsT(16)), ("b", BOOL)):
        scope.bind(name, VarB(t, f"{name}_py"))
    return gen, scope


def parse_program(text: str) -> A.Program:
    """P4 source `text` as the file `t.p4`, parsed (no preprocessing)."""
    from p4emu.lang.parser import parse

    return parse(tokenize([SourceLine("t.p4", i + 1, line) for i, line in enumerate(text.splitlines())]))


def declaring(text: str) -> tuple[ProgramGen, Scope]:
    """`generator()` with the top-level declarations of P4 source `text` made first, and
    `k`: a read-only bit<8> (an `in` parameter)."""
    program = parse_program(text)
    gen = ProgramGen(program)
    gen.state.env.names = resolve_names(program)  # as `check_program` does first
    for d in program.decls:
        b = gen.checker.declare_global(d)
        if b is not None:
            gen.global_decl(b)
    scope = Scope(gen.global_scope)
    for name, t in (("x", BitsT(8)), ("y", BitsT(8, True)), ("w", BitsT(16)), ("b", BOOL)):
        scope.bind(name, VarB(t, f"{name}_py"))
    scope.bind("k", VarB(BitsT(8), "k_py", writable=False, direction="in"))
    return gen, scope


def parse_stmt(text: str) -> A.Stmt:
    return Parser(tokenize([SourceLine("t.p4", 1, text)])).statement()
