"""p4emu front end driver: preprocess (`p4emu.lang`), then parse, check and generate
(`p4emu.compiler`).

`compile_file(path, include_dirs, defines)` returns `CompileResult(info, p4info, ir)`;
user errors raise `P4CompileError` whose str() is `file:line:col: error: ...`. The
language modules live in `p4emu.lang`, so the compiler never imports this package and
the two do not depend on each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4.config.v1 import p4info_pb2

from p4emu.compiler import compile_lines
from p4emu.lang.errors import P4CompileError
from p4emu.lang.preprocess import preprocess
from p4emu.runtime.model import ProgramInfo

__all__ = ["CompileResult", "P4CompileError", "compile_file"]


@dataclass
class CompileResult:
    info: ProgramInfo
    p4info: p4info_pb2.P4Info
    ir: bytes
    program: object = None  # the CompiledProgram (ready for a Pipeline)


def compile_file(path: str, include_dirs=(), defines: dict[str, str] | None = None) -> CompileResult:
    lines = preprocess(path, include_dirs, defines)
    prog = compile_lines(lines)
    return CompileResult(prog.info, prog.p4info, prog.ir, prog)
