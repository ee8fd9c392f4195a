"""p4emu's compiled (C) pipeline for a subset of v1model programs.

`load_native(program)` emits C from the program's typed IR (`cgen`), builds it once into
a cache (`build`) and returns a `NativeProgram`; `NativePipeline(native, state)` runs
packets through it with the interface of `p4emu.v1model.pipeline.Pipeline`, one State per
switch. Outside the subset, `load_native` raises `NativeUnsupported` with a one-line
reason and the caller keeps the Python pipeline.

The subset (docs/native.md): scalars up to 64 bits, headers, structs and header stacks
(no unions, varbit), parsers with extract/select/lookahead/advance, controls, actions
and functions, exact/lpm/ternary/optional/range tables with action profiles and
selectors (watch ports included), counters, registers, hash, checksums, random,
truncate; unicast and multicast (no clone, resubmit, recirculate, digest, meters,
direct counters).

The compiled traffic manager's C is here too (`tm_build`, rt/tm*.c); its Python face is
the switch's (`p4emu.switch.native_traffic_manager`). This package imports nothing of the
switch: the switch imports it and chooses (docs/native.md).
"""

from __future__ import annotations

from p4emu.native.errors import NativeUnsupported

__all__ = ["NativeUnsupported", "load_native"]


def load_native(program):
    """The `NativeProgram` of a CompiledProgram (built or taken from the cache)."""
    from p4emu.native.pipeline import NativeProgram

    return NativeProgram.load(program)
