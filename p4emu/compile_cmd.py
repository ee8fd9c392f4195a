"""`python -m p4emu compile PROG.p4 [-I DIR] [-D NAME[=VAL]] --p4runtime-files OUT.p4info.txtpb [-o OUT.json]`."""

from __future__ import annotations

import argparse
import logging
import sys

from google.protobuf import text_format

from p4emu.frontend import P4CompileError, compile_file

log = logging.getLogger(__name__)


def parse_defines(items: list[str]) -> dict[str, str]:
    """`-D NAME[=VALUE]` options as cpp reads them: NAME alone is 1, NAME= is empty."""
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        out[name] = value if sep else "1"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="p4emu compile", description="Compile a P4_16 v1model program")
    ap.add_argument("program")
    ap.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    ap.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VAL]")
    ap.add_argument("--p4runtime-files", dest="p4info", metavar="OUT.p4info.txtpb")
    ap.add_argument("-o", dest="output", metavar="OUT.json", help="write the device config (IR)")
    args = ap.parse_args(argv)
    try:
        result = compile_file(args.program, tuple(args.include), parse_defines(args.define))
    except P4CompileError as e:
        print(str(e), file=sys.stderr)
        return 1
    except RecursionError:
        print(f"{args.program}: error: program nested too deeply", file=sys.stderr)
        return 1
    except Exception as e:  # a p4emu bug: still one line, no traceback
        log.debug("internal error", exc_info=True)
        print(f"{args.program}: error: internal compiler error: {type(e).__name__}: {e}",
              file=sys.stderr)
        return 1
    try:
        if args.p4info:
            with open(args.p4info, "w", encoding="utf-8") as f:
                f.write(text_format.MessageToString(result.p4info))
        if args.output:
            with open(args.output, "wb") as f:
                f.write(result.ir)
    except OSError as e:
        print(f"p4emu compile: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    return 0
