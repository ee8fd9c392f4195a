"""Whole-program generation: `ProgramGen`, the emitter's driver. `run` has its `checker`
(`checker.ProgramChecker`, the front end's passes of `passes/`) check the whole program
into its typed IR (`p4emu.ir.blocks.Program`), then emits that IR as Python, in the
program's order, through the emitter's passes (below). Checker and emitter share one
`CompileState` (`generated.py`): `out`, the `GeneratedProgram` (the generated Python
module's parts and the control-plane object lists `objects`, `links`, ..., which
`lower_control_plane.py` turns into the typed `p4emu.ir.ControlPlane`), `env`, the
declaration tables and memos, and `walk`, where in the program the walk is.

Each pass is a `generated.CompilePass`: constructed with the state, it declares the other
passes it calls (`exprs: ExpressionEmitter`), which the driver sets (`connect_passes`).
Expressions, statements and calls recurse into each other through those references.

How a program becomes Python (one walk over the checked program: each top-level action
and extern object, then main's blocks with their variables, instances, tables, statements
and parser transitions):

- every header/struct/union type (its fields checked by `passes/resolve_types.py`)
  becomes a class (`structs.py`; structs with `__slots__`, headers with their initial
  values as class attributes, read and written through `struct`): fields are
  attributes `f_<name>`, headers add `valid`, `extract(pk)`, `emit(out)`, `set_valid()`,
  `copy()`, `assign()`, `equals()`;
- every parser/control *instance* (top-level blocks and sub-blocks, so two instances of one
  control get their own tables) becomes functions (`BlockEmitter`, `blocks.py`): the apply
  function takes
  the compound parameters by reference plus scalar `in`/`inout` values and returns scalar
  `out`/`inout` results; control-level variables and scalar parameters live in a per-apply
  frame object `C`; actions and table-apply functions take the same `(params..., C)`
  (`ActionEmitter`, `actions.py`); parser states are functions returning the next state,
  None = accept (`ParserStateEmitter`, `parsers.py`);
- a table becomes `TA_n(...)`: key tuple → `Table.lookup` → dispatch dict `TD_n`
  (action id → wrapper that unpacks action data) → returns the LookupResult, so
  `.hit`/`.action_run` are attribute reads (`TableEmitter`, `tables.py`, emitting the typed
  table `passes/check_tables.py` checks);
- externs become calls into `p4emu.v1model.support` and the run-time objects (extern
  functions by the `ExternFunctionEmitter`, `externs.py`, extern objects by the
  `ExternObjectEmitter`, `extern_objects.py`, packet_in/packet_out by the `PacketEmitter`,
  `packets.py`, `lookahead.py`; their calls checked by `passes/check_externs.py` and
  `check_extern_methods.py`); per-packet requests (clone, resubmit, digest, truncate ...)
  go to the global `PS`;
- statements (`StatementEmitter`, `passes/emit_statements.py`, checked by
  `check_statements.py`), expressions (`ExpressionEmitter`, `passes/emit.py`, with the
  `OperatorEmitter`, `emit_operators.py`; checked by `typecheck.py`, folded by
  `folding.py`) and calls (checked in `passes/check_calls.py`, `check_arguments.py`;
  emitted by the `CallEmitter`, `calls.py`) generate the bodies, in p4c's evaluation
  order (`ordering.py`), writing lvalues through `assignments.py`;
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

from p4emu.compiler.actions import ActionEmitter
from p4emu.compiler.blocks import BlockEmitter
from p4emu.compiler.calls import CallEmitter
from p4emu.compiler.checker import ProgramChecker
from p4emu.compiler.extern_objects import ExternObjectEmitter
from p4emu.compiler.externs import ExternFunctionEmitter
from p4emu.compiler.generated import CompilePass, CompileState, CompileStateView, connect_passes
from p4emu.compiler.packets import PacketEmitter
from p4emu.compiler.parsers import ParserStateEmitter
from p4emu.compiler.passes.check_backend import check_backend
from p4emu.compiler.passes.emit import ExpressionEmitter
from p4emu.compiler.passes.emit_operators import OperatorEmitter
from p4emu.compiler.passes.emit_statements import StatementEmitter
from p4emu.compiler.scope import ActionB, InstB
from p4emu.compiler.tables import TableEmitter
from p4emu.ir import blocks as B
from p4emu.lang import ast as A


class ProgramGen(CompileStateView):
    """The emitter's driver: has `checker` check the program, then emits its typed IR
    through its passes, each a `CompilePass` over the one `state` the checker shares
    (`out` is what later stages read, `env` the declaration tables and memos, `walk` where
    the walk is)."""

    def __init__(self, program: A.Program):
        self.program = program
        self.state = state = CompileState()
        self.checker = ProgramChecker(state)
        # the passes, by the names they declare each other by (`CompilePass`)
        self.exprs = ExpressionEmitter(state)
        self.operators = OperatorEmitter(state)
        self.stmts = StatementEmitter(state)
        self.calls = CallEmitter(state)
        self.actions = ActionEmitter(state)
        self.extern_functions = ExternFunctionEmitter(state)
        self.extern_objects = ExternObjectEmitter(state)
        self.packets = PacketEmitter(state)
        self.blocks = BlockEmitter(state)
        self.parser_states = ParserStateEmitter(state)
        self.tables = TableEmitter(state)
        connect_passes(self.passes())

    def passes(self) -> dict[str, CompilePass]:
        """The emitter's passes by name."""
        return {name: p for name, p in vars(self).items() if isinstance(p, CompilePass)}

    def run(self) -> None:
        self.emit_program(self.checker.check_program(self.program))

    def emit_global(self, b: ActionB | InstB) -> None:
        """A top-level declaration the checker bound (`passes/declare_globals.py`) that has
        code: an action its P4Info record, a top-level extern instance its run-time object.
        (Struct classes are generated from the checked types when the module is written,
        `structs.py`.)"""
        if isinstance(b, ActionB):
            self.actions.register_action(b)
        else:
            b.py = self.extern_objects.emit_instance(b.extern)

    def emit_program(self, program: B.Program) -> None:
        for b in program.globals:
            self.emit_global(b)
        self.out.main_annotations = list(program.main_annotations)  # P4Info pkg_info
        self.out.header_types = dict(program.header_types)
        self.walk.top_prefixes = {b.name for _, b in program.roles}
        for role, block in program.roles:
            ctx = self.blocks.emit_block(block, self.next_id())
            ctx.decl = block.instance.decl
            self.out.roles[role] = ctx
        check_backend(self.out, self.out.roles["deparser"].body)  # BMv2's refusals, in what main uses
        for block in program.unused:
            # generated for the checks made while generating, into a copy that is dropped
            saved, self.out = self.out, self.out.scratch()
            try:
                self.blocks.emit_block(block, self.next_id())
            finally:
                self.out = saved
