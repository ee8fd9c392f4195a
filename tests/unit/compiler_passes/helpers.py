"""Fragments of P4 checked inside a program (`p4emu.compiler.fragments`), with a scope of a
few variables."""

from __future__ import annotations

from p4emu.compiler.fragments import ProgramFragments, parse_expr, parse_program, parse_stmt
from p4emu.compiler.program import ProgramGen
from p4emu.compiler.scope import Scope, VarB
from p4emu.lang.types import BOOL, BitsT

__all__ = ["declaring", "fragments", "parse_expr", "parse_program", "parse_stmt"]


def fragments(declarations: str = "") -> ProgramFragments:
    """The top-level declarations of P4 source `declarations` (the file `t.p4`) declared,
    and a scope with `x`: bit<8>, `y`: int<8>, `w`: bit<16>, `b`: bool (run-time values)
    and `k`: a read-only bit<8> (an `in` parameter)."""
    f = ProgramFragments(declarations)
    for name, t in (("x", BitsT(8)), ("y", BitsT(8, True)), ("w", BitsT(16)), ("b", BOOL)):
        f.bind(name, VarB(t, f"{name}_py"))
    f.bind("k", VarB(BitsT(8), "k_py", writable=False, direction="in"))
    return f


def declaring(declarations: str) -> tuple[ProgramGen, Scope]:
    """`fragments(declarations)`'s emitter and scope, for the checks of constructs of the
    program itself (`gen.program.decls`)."""
    f = fragments(declarations)
    return f.gen, f.scope
