"""The fabric program, compiled once per process for every simulated switch."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

from mrclab.places import FABRIC_PROGRAM
from p4emu.switch.program import Loader, ir_loader

DEFAULT_PROGRAM = FABRIC_PROGRAM
CPU_PORT = 255  # as the lab starts its switches (--cpu-port 255)


@dataclass(frozen=True)
class CompiledProgram:
    p4info: p4info_pb2.P4Info
    device_config: bytes  # the IR `p4emu compile -o` writes: what the controller pushes
    loader: Loader  # device config -> pipeline factory (compiled once per process)


@functools.cache
def compiled(source: Path = DEFAULT_PROGRAM, pipeline: str = "auto") -> CompiledProgram:
    """`source` through p4emu's front end (as `p4emu compile`), with the loader that
    hands every switch its own pipeline, as `p4emu switch` does (`pipeline`: which one,
    `p4emu.switch.program.ir_loader`)."""
    from p4emu.frontend import compile_file

    result = compile_file(str(source))
    p4info = result.p4info
    if isinstance(p4info, str | bytes):
        p4info = text_format.Parse(p4info, p4info_pb2.P4Info())
    return CompiledProgram(p4info, result.ir, ir_loader(CPU_PORT, pipeline))
