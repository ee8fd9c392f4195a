"""Whole-program generation: `ProgramGen`, the emitter (assembled from the mixins below).
`run` has its `checker` (`checker.ProgramChecker`, the front end's passes of `passes/`)
check the whole program into its typed IR (`p4emu.ir.blocks.Program`), then emits that IR
as Python, in the program's order. Both use one `CompileState` (`generated.py`): `out`, the
`GeneratedProgram` (the generated Python module's parts and the control-plane object lists
`objects`, `links`, ..., which `lower_control_plane.py` turns into the typed
`p4emu.ir.ControlPlane`), `env`, the declaration tables and memos, and `walk`, where in the
program the walk is. Top-level declarations are in `declarations.py`.

How a program becomes Python (one walk over the checked program: each top-level action
and extern object, then main's blocks with their variables, instances, tables, statements
and parser transitions):

- every header/struct/union type (its fields checked by `passes/resolve_types.py`)
  becomes a class (`structs.py`; structs with `__slots__`, headers with their initial
  values as class attributes, read and written through `struct`): fields are
  attributes `f_<name>`, headers add `valid`, `extract(pk)`, `emit(out)`, `set_valid()`,
  `copy()`, `assign()`, `equals()`;
- every parser/control *instance* (top-level blocks and sub-blocks, so two instances of one
  control get their own tables) becomes functions (`blocks.py`): the apply function takes
  the compound parameters by reference plus scalar `in`/`inout` values and returns scalar
  `out`/`inout` results; control-level variables and scalar parameters live in a per-apply
  frame object `C`; actions and table-apply functions take the same `(params..., C)`
  (`actions.py`); parser states are functions returning the next state, None = accept
  (`parsers.py`);
- a table becomes `TA_n(...)`: key tuple → `Table.lookup` → dispatch dict `TD_n`
  (action id → wrapper that unpacks action data) → returns the LookupResult, so
  `.hit`/`.action_run` are attribute reads (`tables.py`, emitting the typed table
  `passes/check_tables.py` checks);
- externs become calls into `p4emu.v1model.support` and the run-time objects (extern
  functions in `externs.py`, extern objects in `extern_objects.py`, packet_in/packet_out
  in `packets.py`, `lookahead.py`; their calls checked by `passes/check_externs.py` and
  `check_extern_methods.py`); per-packet requests (clone, resubmit, digest, truncate ...)
  go to the global `PS`;
- statements (`stmts.py`: `passes/emit_statements.py`, checked by `check_statements.py`),
  expressions (`passes/emit.py`, checked by `typecheck.py`, folded by `folding.py`) and calls
  (checked in `passes/check_calls.py`, `check_arguments.py`; emitted by `calls.py`)
  generate the bodies, in p4c's evaluation order (`ordering.py`);
- checks p4c makes that the generated code does not need (P4Info names, entry priorities,
  parser termination, checksum controls) are in `checks.py`; over the typed IR, the
  V1Switch blocks' signatures and headers type in `passes/check_v1switch.py` and BMv2's
  back-end limits in what main uses in `passes/check_backend.py`;
- module-level names `TBL_n`, `REG_n`, `CNT_n`, `MTR_n`, `VS_n` are bound by the Pipeline to
  a DeviceState's objects (`out.bindings`), `AID` maps action names to P4Info ids.

Values: bit<N> = unsigned int, int<N> = signed int, bool, error/enum = int, varbit =
(width, value). Arithmetic is masked at each operation, as p4c's BMv2 back end does.
"""

from __future__ import annotations

from p4emu.compiler.actions import ActionGen
from p4emu.compiler.blocks import BlockGen
from p4emu.compiler.calls import CallGen
from p4emu.compiler.checker import ProgramChecker
from p4emu.compiler.declarations import DeclarationGen
from p4emu.compiler.extern_objects import ExternObjectGen
from p4emu.compiler.externs import ExternGen
from p4emu.compiler.generated import CompileState, CompileStateView
from p4emu.compiler.ordering import OrderGen
from p4emu.compiler.packets import PacketGen
from p4emu.compiler.parsers import ParserGen
from p4emu.compiler.passes.check_backend import check_backend
from p4emu.compiler.passes.emit import ExprEmit
from p4emu.compiler.stmts import StmtGen
from p4emu.compiler.tables import TableGen
from p4emu.ir import blocks as B
from p4emu.lang import ast as A


class ProgramGen(CompileStateView, DeclarationGen, ExprEmit, StmtGen, CallGen, ActionGen, ExternGen,
                 ExternObjectGen, PacketGen, BlockGen, ParserGen, TableGen, OrderGen):
    """The emitter: has `checker` check the program, then emits its typed IR. `out` is what
    later stages read, `env` the declaration tables and memos, `walk` where the walk is;
    the checker shares them (`state`)."""

    def __init__(self, program: A.Program):
        self.program = program
        self.state = CompileState()
        self.checker = ProgramChecker(self.state)

    def run(self) -> None:
        self.emit_program(self.checker.check_program(self.program))

    def emit_program(self, program: B.Program) -> None:
        for b in program.globals:
            self.global_decl(b)
        self.out.main_annotations = list(program.main_annotations)  # P4Info pkg_info
        self.out.header_types = dict(program.header_types)
        self.walk.top_prefixes = {b.name for _, b in program.roles}
        for role, block in program.roles:
            ctx = self.emit_block(block, self.next_id())
            ctx.decl = block.instance.decl
            self.out.roles[role] = ctx
        check_backend(self.out, self.out.roles["deparser"].body)  # BMv2's refusals, in what main uses
        for block in program.unused:
            # generated for the checks made while generating, into a copy that is dropped
            saved, self.out = self.out, self.out.scratch()
            try:
                self.emit_block(block, self.next_id())
            finally:
                self.out = saved
