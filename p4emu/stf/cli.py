"""`python -m p4emu stf PROG.p4 TEST.stf [TEST2.stf ...] [-I DIR] [-D NAME[=VALUE]]`.

Exit status: 0 when every expectation of every file is met, 1 when some is not, 2 for bad
input (unreadable file, compile error, bad STF line), 3 for an internal error of p4emu
while running a packet (the traceback is printed; no verdict is given, since a broken
emulator must not pass a test that expects a drop).
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from p4emu.cmdline import OneLineParser, UsageError, run_main
from p4emu.compile_cmd import parse_defines
from p4emu.native.errors import NativeUnsupported
from p4emu.runtime.device import DeviceState
from p4emu.stf.parser import StfError, parse_stf
from p4emu.stf.runner import FileResult, ProcessFn, run_commands

if TYPE_CHECKING:
    from p4emu.v1model.pipeline import EgressJob

INTERNAL_ERROR = 3


def _parse_args(argv: list[str]) -> argparse.Namespace:
    ap = OneLineParser(prog="p4emu stf", description="Run STF tests on p4emu.",
                       error_prefix="p4emu stf")
    ap.add_argument("program", help="P4_16 v1model program")
    ap.add_argument("stf", nargs="+", help="STF test files")
    ap.add_argument("-I", dest="include", action="append", default=[], metavar="DIR")
    ap.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]")
    ap.add_argument("--priority-queues", type=int, default=1, metavar="N",
                    help="egress priority queues per port, as simple_switch's flag; packets "
                         "with priority >= N are dropped (default 1, simple_switch's default)")
    ap.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    ap.add_argument("--pipeline", choices=("python", "native"), default="python",
                    help="the generated Python pipeline (default, the reference) or "
                         "p4emu.native's compiled C one (exit 2 when the program is outside "
                         "its subset)")
    args = ap.parse_args(argv)
    if not 1 <= args.priority_queues <= 8:
        ap.error(f"--priority-queues {args.priority_queues}: must be within 1..8")
    return args


def build_device(program_path: str, include_dirs: list[str], defines: dict[str, str],
                 priority_queues: int = 1, native: bool = False
                 ) -> Callable[..., tuple[DeviceState, ProcessFn]]:
    """Compile once; return a factory of fresh (device state, process) pairs.

    `priority_queues` is simple_switch's `--priority-queues` (p4c's STF driver starts it
    without the flag, hence 1): a packet whose priority is not below it is dropped.
    `native`: run p4emu.native's compiled pipeline (raises NativeUnsupported outside its
    subset)."""
    from p4emu.compiler import load_ir
    from p4emu.frontend import compile_file
    from p4emu.v1model.pipeline import Pipeline

    result = compile_file(program_path, include_dirs=tuple(include_dirs), defines=defines)
    program = load_ir(result.ir)
    make_pipeline: Callable = Pipeline
    if native:
        from p4emu.native import load_native
        from p4emu.native.pipeline import NativePipeline

        load_native(program)
        make_pipeline = NativePipeline

    def fresh(on_enqueue: Callable[[EgressJob], None] | None = None, queue_depth: int = 0
              ) -> tuple[DeviceState, ProcessFn]:
        """`on_enqueue`: told each packet as it would join its egress queue; `queue_depth`:
        the depth every packet meets there (STF's own: 0)."""
        clock = [0]
        state = DeviceState.from_program(program.info, clock_us=lambda: clock[0])
        pipeline = make_pipeline(program, state, priority_queues=priority_queues)
        pipeline.on_enqueue = on_enqueue
        pipeline.queue_depth = queue_depth

        def process(port: int, data: bytes, now_us: int) -> list[tuple[int, bytes]]:
            clock[0] = now_us
            return pipeline.process(port, data, now_us)

        return state, process

    return fresh


def run_files(fresh: Callable[[], tuple[DeviceState, ProcessFn]], paths: list[str]
              ) -> tuple[list[FileResult], list[str]]:
    """Run each STF file on a fresh device; returns results and input errors."""
    results: list[FileResult] = []
    errors: list[str] = []
    for path in paths:
        try:
            text = Path(path).read_text()
        except OSError as exc:
            errors.append(f"{path}: error: cannot read: {exc.strerror}")
            continue
        try:
            commands = parse_stf(text, path)
        except StfError as exc:
            errors.append(str(exc))
            continue
        state, process = fresh()
        try:
            results.append(run_commands(commands, state, process, path))
        except StfError as exc:
            errors.append(str(exc))
        except Exception as exc:  # an internal error: fatal, see main()
            exc.add_note(f"p4emu stf: while running {path}")
            raise
    return results, errors


def main(argv: list[str]) -> int:
    args = _parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    from p4emu.lang.errors import P4CompileError

    return run_main("p4emu stf", lambda: _run(args), {(UsageError, P4CompileError, OSError): 2},
                    plain=(P4CompileError,))


def _run(args: argparse.Namespace) -> int:
    if not Path(args.program).is_file():
        raise UsageError(f"{args.program}: no such file")
    try:
        fresh = build_device(args.program, args.include, parse_defines(args.define),
                             args.priority_queues, native=args.pipeline == "native")
    except NativeUnsupported as exc:
        raise UsageError(f"--pipeline native: {exc}") from None
    try:
        results, errors = run_files(fresh, args.stf)
    except Exception:
        traceback.print_exc()
        print("p4emu stf: internal error of p4emu (a bug): no verdict", file=sys.stderr)
        return INTERNAL_ERROR
    for result in results:
        for line in result.report_lines():
            print(line)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 2
    return 0 if all(r.ok for r in results) else 1
