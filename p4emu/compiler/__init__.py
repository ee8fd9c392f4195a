"""P4 program → generated Python module + ProgramInfo.

`compile_lines` runs the compiler's passes in order: parse, the checker
(`checker.ProgramChecker`: the name-resolution pass, `passes.resolve_names`, for parser
states, match kinds and type names; then type checking, which resolves the other names in
its scopes, into the whole program's typed IR), the emitter (`program.ProgramGen`, Python from that
IR), then lowers the control-plane part of the emitter's results (`GeneratedProgram`) to
`p4emu.ir.ControlPlane` (`lower_control_plane`) and builds P4Info and ProgramInfo from it
(`p4emu.p4info`).

The device config (what `p4emu compile -o` writes and a P4Runtime client sends as
p4_device_config) is not compiled code but the preprocessed source, as JSON
(`{"format": "p4emu-preprocessed/1", "files": [...], "lines": [...]}`):
`load_preprocessed` parses and checks it again and generates the Python locally, so a
device never executes code it was sent.
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

PREPROCESSED_FORMAT = "p4emu-preprocessed/1"
# the same document under the name it had when it was (wrongly) called an IR
LEGACY_PREPROCESSED_FORMATS = ("p4emu-ir/1",)


@dataclass
class CompiledProgram:
    info: ProgramInfo
    p4info: p4info_pb2.P4Info
    source: str  # generated Python module
    code: object  # compiled code object of `source`
    bindings: dict[str, tuple[str, str]]  # global name -> (object kind, full name)
    action_ids: dict[str, int]
    digest_ids: dict[str, int]
    preprocessed: bytes = b""  # the device config: `encode_preprocessed` of the source
    meta: dict = field(default_factory=dict)
    control_plane: ControlPlane | None = None  # the typed IR P4Info was built from

    @property
    def ir(self) -> bytes:
        """The device config under its old name (callers outside the compiler use it)."""
        return self.preprocessed


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
    return CompiledProgram(info, p4, source, code, dict(gen.out.bindings), aid, digest_ids,
                           encode_preprocessed(lines), control_plane=control_plane)


def encode_preprocessed(lines: list[SourceLine]) -> bytes:
    """The device config of preprocessed source `lines` (blank lines left out)."""
    files: list[str] = []
    index: dict[str, int] = {}
    rows = []
    for sl in lines:
        if sl.file not in index:
            index[sl.file] = len(files)
            files.append(sl.file)
        if sl.text.strip():
            rows.append([index[sl.file], sl.line, sl.text])
    return json.dumps({"format": PREPROCESSED_FORMAT, "files": files, "lines": rows},
                      separators=(",", ":")).encode()


def decode_preprocessed(data: bytes) -> list[SourceLine]:
    """The source lines of a device config (`encode_preprocessed`, or an older file)."""
    try:
        doc = json.loads(data)
        fmt = doc.get("format")
        if fmt != PREPROCESSED_FORMAT and fmt not in LEGACY_PREPROCESSED_FORMATS:
            raise ValueError(f"format {fmt!r}, expected {PREPROCESSED_FORMAT!r} "
                             "(the output of `python -m p4emu compile -o`)")
        files = doc["files"]
        return [SourceLine(str(files[f]), int(n), str(t)) for f, n, t in doc["lines"]]
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as e:
        raise P4CompileError(None, f"invalid p4emu device config (preprocessed source): {e}") from None


def load_preprocessed(data: bytes) -> CompiledProgram:
    """Compile a device config (`encode_preprocessed`); any problem raises P4CompileError."""
    lines = decode_preprocessed(data)
    try:
        return compile_lines(lines)
    except P4CompileError:
        raise
    except Exception as e:  # a malformed config must not take a switch down
        log.debug("load_preprocessed failed", exc_info=True)
        raise P4CompileError(None, f"internal compiler error: {type(e).__name__}: {e}") from None


load_ir = load_preprocessed  # the old name, which callers outside the compiler still use
