"""P4 program → generated Python module + ProgramInfo.

`compile_lines` parses, runs the generator (`ProgramGen`), lowers the control-plane part
of its results (`GeneratedProgram`) to the typed IR (`lower_control_plane` → `p4emu.ir.ControlPlane`) and builds
P4Info and ProgramInfo from that IR (`p4emu.p4info`).

The device-config IR (what `p4emu compile -o` writes and a P4Runtime client sends as
p4_device_config) is the preprocessed source as JSON (`{"format": "p4emu-ir/1", "lines": [...]}`):
`load_ir` re-parses and re-checks it and generates the Python code locally, so a device
never executes code it was sent.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

from p4.config.v1 import p4info_pb2

from p4emu import p4info as p4info_mod
from p4emu.compiler.lower_control_plane import lower_control_plane
from p4emu.compiler.program import ProgramGen
from p4emu.ir import ControlPlane
from p4emu.lang.errors import P4CompileError
from p4emu.lang.lexer import tokenize
from p4emu.lang.parser import parse
from p4emu.lang.preprocess import SourceLine
from p4emu.runtime.model import ProgramInfo

log = logging.getLogger(__name__)

IR_FORMAT = "p4emu-ir/1"


@dataclass
class CompiledProgram:
    info: ProgramInfo
    p4info: p4info_pb2.P4Info
    source: str  # generated Python module
    code: object  # compiled code object of `source`
    bindings: dict[str, tuple[str, str]]  # global name -> (object kind, full name)
    action_ids: dict[str, int]
    digest_ids: dict[str, int]
    ir: bytes = b""
    meta: dict = field(default_factory=dict)
    control_plane: ControlPlane | None = None  # the typed IR P4Info was built from


def compile_lines(lines: list[SourceLine]) -> CompiledProgram:
    prog = parse(tokenize(lines))
    gen = ProgramGen(prog)
    gen.run()
    control_plane = lower_control_plane(gen.out)
    info, p4, aid, digest_ids = p4info_mod.build(control_plane)
    source = gen.out.module_source()
    try:
        code = compile(source, "<p4emu generated>", "exec")
    except SyntaxError as e:  # a generator bug, never a user error
        log.error("generated code does not compile: %s (line %s)", e, e.lineno)
        raise
    ir = encode_ir(lines)
    return CompiledProgram(info, p4, source, code, dict(gen.out.bindings), aid, digest_ids, ir,
                           control_plane=control_plane)


def encode_ir(lines: list[SourceLine]) -> bytes:
    files: list[str] = []
    index: dict[str, int] = {}
    rows = []
    for sl in lines:
        if sl.file not in index:
            index[sl.file] = len(files)
            files.append(sl.file)
        if sl.text.strip():
            rows.append([index[sl.file], sl.line, sl.text])
    return json.dumps({"format": IR_FORMAT, "files": files, "lines": rows},
                      separators=(",", ":")).encode()


def decode_ir(ir: bytes) -> list[SourceLine]:
    try:
        doc = json.loads(ir)
        if doc.get("format") != IR_FORMAT:
            raise ValueError("not a p4emu IR")
        files = doc["files"]
        return [SourceLine(str(files[f]), int(n), str(t)) for f, n, t in doc["lines"]]
    except (ValueError, KeyError, TypeError, IndexError) as e:
        raise P4CompileError(None, f"invalid p4emu IR: {e}") from None


def load_ir(ir: bytes) -> CompiledProgram:
    """Build a CompiledProgram from IR bytes; any problem raises P4CompileError."""
    lines = decode_ir(ir)
    try:
        return compile_lines(lines)
    except P4CompileError:
        raise
    except Exception as e:  # a malformed config must not take a switch down
        log.debug("load_ir failed", exc_info=True)
        raise P4CompileError(None, f"internal compiler error: {type(e).__name__}: {e}") from None
