"""Whole-program generation: `ProgramGen`, the emitter (assembled from the mixins below),
and the V1Switch package. It walks the program in p4c's order; for each construct it asks
its `checker` (`checker.ProgramChecker`, the front end's passes of `passes/`) for the typed
IR (`p4emu.ir`), then emits that IR as Python. Both read and write one `CompileState`
(`generated.py`): `out`, the `GeneratedProgram` (the generated Python module's parts and
the control-plane object lists `objects`, `links`, ..., which `lower_control_plane.py`
turns into the typed `p4emu.ir.ControlPlane`), `env`, the declaration tables and memos, and
`walk`, where in the program the walk is. Top-level declarations are in `declarations.py`.

How a program becomes Python (one walk over the declarations; each constant, instance,
table, statement and parser transition is checked into the typed IR, then emitted):

- every header/struct/union type (its fields checked by `passes/resolve_types.py`)
  becomes a `__slots__` class (`structs.py`): fields are
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
- statements (`stmts.py` runs `passes/check_statements.py` and `emit_statements.py`),
  expressions (`exprs.py`: `passes/typecheck.py`, `folding.py`, `emit.py`) and calls
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
from p4emu.compiler.checks import CHECKSUM_CALLS, check_checksum_control
from p4emu.compiler.declarations import DeclarationGen
from p4emu.compiler.exprs import ExprGen
from p4emu.compiler.extern_objects import ExternObjectGen
from p4emu.compiler.externs import ExternGen
from p4emu.compiler.generated import CompileState, CompileStateView
from p4emu.compiler.instances import InstanceGen
from p4emu.compiler.ordering import OrderGen
from p4emu.compiler.packets import PacketGen
from p4emu.compiler.parsers import ParserGen
from p4emu.compiler.passes.check_backend import check_backend
from p4emu.compiler.passes.check_v1switch import check_v1switch
from p4emu.compiler.scope import TypeB
from p4emu.compiler.stmts import StmtGen
from p4emu.compiler.tables import TableGen
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import ObjectT

V1SWITCH_ROLES = ("parser", "verify", "ingress", "egress", "compute", "deparser")
V1SWITCH_PARAMS = ("p", "vr", "ig", "eg", "ck", "dep")  # parameter names in v1model.p4


class ProgramGen(CompileStateView, DeclarationGen, ExprGen, StmtGen, CallGen, ActionGen, ExternGen,
                 ExternObjectGen, PacketGen, BlockGen, ParserGen, InstanceGen, TableGen, OrderGen):
    """The emitter: walks the program, asks `checker` for each construct's typed IR and
    emits it. `out` is what later stages read, `env` the declaration tables and memos,
    `walk` where the walk is; the checker shares them (`state`)."""

    def __init__(self, program: A.Program):
        self.program = program
        self.state = CompileState()
        self.checker = ProgramChecker(self.state)

    # -- globals -----------------------------------------------------------------------
    def run(self) -> None:
        g = self.global_scope
        for name, kind in (("packet_in", "packet_in"), ("packet_out", "packet_out")):
            g.bind(name, TypeB(ObjectT(kind, name)))
        main = None
        for d in self.program.decls:
            if isinstance(d, A.InstanceDecl) and d.name == "main":
                main = d
                continue
            self.global_decl(d)
        if main is not None:
            self.out.main_annotations = main.annotations  # P4Info pkg_info (@pkginfo, @brief)
            self.gen_main(main)
        self.check_unused_blocks()
        if main is None:
            raise P4CompileError(self.program.loc, "no 'main' package instantiation found")

    def check_unused_blocks(self) -> None:
        """Type-check parsers/controls that main does not use (p4c reports their errors too)."""
        used = {id(ctx.decl) for ctx in self.out.roles.values() if hasattr(ctx, "decl")}
        for d in self.program.decls:
            if not isinstance(d, (A.ParserDecl, A.ControlDecl)) or id(d) in used:
                continue
            if d.type_params or d.ctor_params:
                continue
            saved = self.out
            self.out = saved.scratch()
            try:
                self.gen_block(d, d.name, [], self.global_scope)
            finally:
                self.out = saved

    # -- main --------------------------------------------------------------------------
    def gen_main(self, main: A.InstanceDecl) -> None:
        t = main.type
        if not isinstance(t, A.TName) or t.name != "V1Switch":
            raise unsupported(main.loc, f"package {getattr(t, 'name', '?')} (only v1model V1Switch)")
        if len(main.args) != 6:
            raise P4CompileError(main.loc, f"V1Switch expects 6 arguments, got {len(main.args)}")
        args = main.args
        if all(a.name is not None for a in args):  # V1Switch(p = P(), ig = I(), ...)
            order = {n: i for i, n in enumerate(V1SWITCH_PARAMS)}
            if sorted(a.name for a in args) != sorted(V1SWITCH_PARAMS):
                raise P4CompileError(main.loc, f"V1Switch: arguments must be named {', '.join(V1SWITCH_PARAMS)}")
            args = sorted(args, key=lambda a: order[a.name])
        decls = []
        for role, arg in zip(V1SWITCH_ROLES, args, strict=True):
            e = arg.value
            if not isinstance(e, A.Call) or not isinstance(e.func, (A.TypeExpr, A.Path)):
                raise P4CompileError(arg.loc, f"V1Switch argument {role}: expected a constructor call")
            name = e.func.type.name if isinstance(e.func, A.TypeExpr) else e.func.name
            b = self.global_scope.lookup(name)
            if not isinstance(b, TypeB) or not isinstance(b.ty, ObjectT) or b.ty.kind not in ("parser", "control"):
                raise P4CompileError(arg.loc, f"{name}: not a parser or control")
            want = "parser" if role == "parser" else "control"
            if b.ty.kind != want:
                raise P4CompileError(arg.loc, f"V1Switch argument {role}: {name} is not a {want}")
            decls.append((role, b.ty.decl, e.args))
        blocks = []
        for role, decl, args in decls:
            anno = A.find_annotation(decl.annotations, "name")
            prefix = anno.string().lstrip(".") if anno is not None and anno.string() else decl.name
            blocks.append((role, self.checker.check_block_instance(decl, prefix, args, self.global_scope)))
        package = self.global_scope.lookup("V1Switch").decl
        slots = [getattr(getattr(self.global_scope.lookup(getattr(p.type, "name", "")), "decl", None), "params", [])
                 for p in package.params]
        hdr_t, meta_t = check_v1switch(blocks, slots)
        self.out.header_types = {"H": hdr_t, "M": meta_t, "SM": self.global_scope.lookup("standard_metadata_t").ty}
        self.walk.top_prefixes = {inst.name for _, inst in blocks}
        for role, inst in blocks:
            if role in CHECKSUM_CALLS:
                check_checksum_control(inst.decl, role)
            ctx = self.emit_block(inst, self.next_id())
            ctx.decl = inst.decl
            self.out.roles[role] = ctx
        check_backend(self.out, self.out.roles["deparser"].body)  # BMv2's refusals, in what main uses
