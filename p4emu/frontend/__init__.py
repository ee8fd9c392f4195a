"""p4emu front end: preprocessor, lexer, parser and (with `p4emu.compiler`) the checker.

`compile_file(path, include_dirs, defines)` returns `CompileResult(info, p4info, ir)`;
user errors raise `P4CompileError` whose str() is `file:line:col: error: ...`.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4.config.v1 import p4info_pb2

from p4emu.frontend.errors import P4CompileError
from p4emu.frontend.preprocess import preprocess
from p4emu.runtime.model import ProgramInfo

__all__ = ["CompileResult", "P4CompileError", "compile_file"]


@dataclass
class CompileResult:
    info: ProgramInfo
    p4info: p4info_pb2.P4Info
    ir: bytes
    program: object = None  # the CompiledProgram (ready for a Pipeline)


def compile_file(path: str, include_dirs=(), defines: dict[str, str] | None = None) -> CompileResult:
    from p4emu.compiler import compile_lines

    lines = preprocess(path, include_dirs, defines)
    prog = compile_lines(lines)
    return CompileResult(prog.info, prog.p4info, prog.ir, prog)
