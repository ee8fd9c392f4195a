"""`python -m p4emu compile PROG.p4 [-I DIR] [-D NAME[=VAL]] --p4runtime-files OUT.p4info.txtpb [-o OUT.json]`.

P4Info files as p4c writes them: `--p4runtime-files A[,B...]` picks the format of each by
its suffix (.json JSON, .bin binary, anything else text); the older `--p4runtime-file F`
takes `--p4runtime-format text|json|binary`.
"""

from __future__ import annotations

import argparse
import logging

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2

from p4emu.cmdline import UsageError, run_main
from p4emu.frontend import P4CompileError, compile_file

log = logging.getLogger(__name__)


def parse_defines(items: list[str]) -> dict[str, str]:
    """`-D NAME[=VALUE]` options as cpp reads them: NAME alone is 1, NAME= is empty."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        out[name] = value if sep else "1"
    return out


P4INFO_FORMATS = ("text", "json", "binary")


def format_by_suffix(path: str) -> str:
    """The P4Info format p4c picks for a --p4runtime-files name."""
    if path.endswith(".json"):
        return "json"
    if path.endswith(".bin"):
        return "binary"
    return "text"


def serialize_p4info(p4info: p4info_pb2.P4Info, fmt: str) -> bytes:
    if fmt == "binary":
        return p4info.SerializeToString()
    if fmt == "json":
        return (json_format.MessageToJson(p4info) + "\n").encode()
    return text_format.MessageToString(p4info).encode()


def p4info_outputs(files: str | None, single: str | None, fmt: str) -> list[tuple[str, str]]:
    """(path, format) of every P4Info file the options ask for."""
    out = [(single, fmt)] if single else []
    for name in (files or "").split(","):
        if name:
            out.append((name, format_by_suffix(name)))
    return out


class CompileFailed(Exception):
    """p4emu, not the program, failed: a line naming the program as p4c words its errors."""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="p4emu compile", description="Compile a P4_16 v1model program")
    ap.add_argument("program")
    ap.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    ap.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VAL]")
    ap.add_argument("--p4runtime-files", dest="p4info", metavar="OUT.p4info.txtpb[,...]")
    ap.add_argument("--p4runtime-file", dest="p4info_single", metavar="FILE")
    ap.add_argument("--p4runtime-format", choices=P4INFO_FORMATS, default="text")
    ap.add_argument("-o", dest="output", metavar="OUT.json", help="write the device config (IR)")
    args = ap.parse_args(argv)
    return run_main("p4emu compile", lambda: _compile(args),
                    {(P4CompileError, CompileFailed, UsageError): 1},
                    plain=(P4CompileError, CompileFailed))


def _compile(args: argparse.Namespace) -> int:
    try:
        result = compile_file(args.program, tuple(args.include), parse_defines(args.define))
    except P4CompileError:
        raise
    except RecursionError:
        raise CompileFailed(f"{args.program}: error: program nested too deeply") from None
    except Exception as e:  # a p4emu bug: still one line, no traceback
        log.debug("internal error", exc_info=True)
        raise CompileFailed(f"{args.program}: error: internal compiler error: "
                            f"{type(e).__name__}: {e}") from None
    try:
        for path, fmt in p4info_outputs(args.p4info, args.p4info_single, args.p4runtime_format):
            with open(path, "wb") as f:
                f.write(serialize_p4info(result.p4info, fmt))
        if args.output:
            with open(args.output, "wb") as f:
                f.write(result.ir)
    except OSError as e:
        raise UsageError(f"cannot write {e.filename}: {e.strerror}") from None
    return 0
