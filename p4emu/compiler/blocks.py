"""Parser and control instances (`BlockEmitter`, a pass of `ProgramGen`): each checked
instance (`p4emu.ir.blocks.CheckedBlock`), top-level or sub-block, becomes an apply
function with its own frame class, locals, tables and externs; `emit_sub_block_apply`
generates the apply of a sub-block. Parser states are the `ParserStateEmitter`'s
(`parsers.py`), tables the `TableEmitter`'s (`tables.py`), extern instances the
`ExternObjectEmitter`'s (`extern_objects.py`), actions and functions the
`ActionEmitter`'s (`actions.py`)."""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.actions import emit_out_init
from p4emu.compiler.analysis import may_exit, writes
from p4emu.compiler.assignments import assign_value
from p4emu.compiler.generated import BlockCtx, CompilePass
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import Fn, InstB, py_ident
from p4emu.compiler.values import V, is_compound, zero_value
from p4emu.ir import blocks as B
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import (
    VOID,
    StackT,
    StructT,
)


def new_fn(ctx: BlockCtx, next_id: Callable[[], int]) -> Fn:
    """An empty generated function of block `ctx` (its statements, a table's apply, a
    dispatch wrapper, a parser state)."""
    fn = Fn(next_id)
    fn.owner = ctx
    fn.ret_type = None
    fn.epilogue = ""
    fn.kind = ctx.kind
    return fn


class BlockEmitter(CompilePass):
    """Parser and control instances -> frame classes and apply functions."""

    USES = ("exprs", "actions", "tables", "extern_objects", "parser_states", "calls")

    # -- frames & params ---------------------------------------------------------------
    def _setup_params(self, ctx: BlockCtx, params: tuple[B.Parameter, ...]) -> list[str]:
        compound = []
        for p in params:
            t = p.type
            if is_compound(t):
                py = f"p_{py_ident(p.name)}"
                compound.append(py)
            else:
                py = f"C.v_{py_ident(p.name)}"
                ctx.frame_fields.append((py[2:], zero_value(t)))
            p.binding.py = py
            ctx.params.append((p, t, py))
        return compound

    def _frame_source(self, ctx: BlockCtx) -> list[str]:
        if not ctx.frame_fields:
            return []
        names = tuple(n for n, _ in ctx.frame_fields)
        L = [f"class {ctx.frame}:", f"    __slots__ = {names!r}", "    def __init__(self):"]
        for n, init in ctx.frame_fields:
            L.append(f"        self.{n} = {init}")
        return L

    def emit_sub_block(self, b: InstB) -> BlockCtx:
        """The apply of sub-block instance `b` (p4c inlines it into the block applying it)."""
        b.ctx = self.emit_block(b.block, self.next_id())
        b.py = b.ctx.apply_py
        return b.ctx

    # -- locals ------------------------------------------------------------------------
    def _emit_local(self, d: B.Local, ctx: BlockCtx) -> None:
        if isinstance(d, B.LocalVar):
            name = f"v_{py_ident(d.name)}_{self.next_id()}"
            ctx.frame_fields.append((name, zero_value(d.type)))
            b = d.binding
            b.py = f"C.{name}"
            if d.init is not None:
                fn = new_fn(ctx, self.next_id)
                self.out.typed.append(d.init)
                v = self.exprs.emit(fold(d.init), fn)
                if is_compound(d.type):
                    assign_value(V(b.py, d.type), v, fn)
                else:
                    fn.emit(f"{b.py} = {v.py}")
                ctx.prologue += fn.lines
        elif isinstance(d, B.LocalAction):
            self.actions.register_action(d.binding)
        elif isinstance(d, B.LocalTable):
            self.tables.emit_table(d, ctx)
        elif isinstance(d, B.LocalInstance) and d.extern is not None:
            d.binding.py = self.extern_objects.emit_instance(d.extern)
        elif isinstance(d, B.LocalInstance):
            self.emit_sub_block(d.binding)
        else:  # a value set
            py = f"VS_{self.next_id()}"
            self.out.bindings[py] = ("value_set", d.decl.name)
            self.out.objects["value_sets"].append(d.decl)
            d.binding.py = py

    # -- blocks ------------------------------------------------------------------------
    def emit_block(self, block: B.CheckedBlock, uid: int) -> BlockCtx:
        """The frame class and apply function `PA_n`/`CA_n` of checked instance `block`."""
        decl, prefix, kind = block.instance.decl, block.name, block.kind
        ctx = BlockCtx(kind, prefix, frame=f"F_{uid}")
        block.frame.ctx = ctx
        for b in block.arg_instances:
            self.emit_sub_block(b)
        compound = self._setup_params(ctx, block.params)
        ctx.sig = ", ".join(compound + ["C"])
        for d in block.locals:
            self._emit_local(d, ctx)
        ctx.apply_py = f"{'PA' if kind == 'parser' else 'CA'}_{uid}"
        fn = new_fn(ctx, self.next_id)
        fn.emit(f"C = {ctx.frame}()" if ctx.frame_fields else "C = None")
        scalar_in = []
        outs = []
        for p, t, py in ctx.params:
            if not is_compound(t):
                if p.direction in ("", "in", "inout"):
                    scalar_in.append(f"s_{py_ident(p.name)}")
                    fn.emit(f"{py} = s_{py_ident(p.name)}")
                if p.direction in ("out", "inout"):
                    outs.append(py)
        if prefix not in self.walk.top_prefixes:
            bodies = [decl.body] if kind == "control" else [st for st in decl.states]
            bodies += [d.body for d in decl.locals if isinstance(d, A.ActionDecl)]
            for p, t, py in ctx.params:
                if p.direction == "out" and is_compound(t):
                    emit_out_init(py, t, fn)
                elif p.direction in ("in", "") and isinstance(t, (StructT, StackT)) and any(
                        writes(b, p.name) for b in bodies):
                    fn.emit(f"{py} = {py}.copy()")  # `in` is a copy: the block may change it
        for line in ctx.prologue:
            fn.lines.append(line)
        fn.epilogue = "".join(o + ", " for o in outs)
        if kind == "control":
            ctx.body = block.body
            # an exit still copies scalar results out when arguments are substituted
            exits = prefix not in self.walk.top_prefixes and bool(outs) and may_exit(decl.body)
            self.actions.body_with_exit_copy_out(block.body, fn, outs, exits)
        else:
            states = self.parser_states.emit_states(block, ctx)
            fn.emit(f"st = {states}")
            fn.emit("n = 0")
            fn.emit("while st is not None:")
            fn.emit(f"    st = st({ctx.sig})")
            fn.emit("    n += 1")
            fn.emit("    if n > 100000: raise ParserError(PARSER_TIMEOUT)")
        if fn.epilogue:
            fn.emit(f"return ({fn.epilogue})")
        params = ", ".join([c for c in compound] + scalar_in)
        self.out.code += self._frame_source(ctx)
        self.out.code.append(f"def {ctx.apply_py}({params}):")
        self.out.code += fn.body()
        ctx.outs = outs
        return ctx

    def emit_sub_block_apply(self, e: I.Call, b: InstB, fn) -> V:
        sub = b.ctx or self.emit_sub_block(b)  # an instance made for `T.apply()`: here
        b.applies += 1
        if sub.applied_tables:
            if b.applies > 1:
                raise P4CompileError(e.loc, f"unsupported: table {sub.applied_tables[0]} applied more than once "
                                            f"(through a second apply of {b.full_name}; BMv2 allows one application "
                                            "per table)")
            owner = getattr(fn, "owner", None)
            if owner is not None:
                owner.applied_tables.extend(sub.applied_tables)
        vals = self.calls.emit_arguments(e.args, fn)
        # p4c inlines a sub-block by substituting its arguments when every call site passes
        # the same non-aliasing arguments; otherwise through temporaries copied out after
        # the body, a copy-out an exit skips (docs/v1model.md §3)
        direct = b.substituted
        compound_args = []
        scalar_args = []
        outs = []
        copy_back = []
        for a, v in zip(e.args, vals, strict=True):
            pt = a.type
            if is_compound(pt):
                if v is None:
                    tmp = fn.fresh("dc")
                    fn.emit(f"{tmp} = {zero_value(pt)}")
                    v = V(tmp, pt)
                target = v.ref[1] if isinstance(v.ref, tuple) and v.ref[0] == "copyin" else v
                if not direct and isinstance(pt, (StructT, StackT)):
                    tmp = fn.fresh("arg")
                    fn.emit(f"{tmp} = {v.py}.copy()")
                    if a.direction in ("out", "inout"):
                        copy_back.append((target, tmp))
                    v = V(tmp, pt)
                else:
                    v = target  # passed by reference: the callee works on the argument itself
                compound_args.append(v.py)
            else:
                if a.direction in ("", "in", "inout"):
                    scalar_args.append(v.py if v is not None else zero_value(pt))
                if a.direction in ("out", "inout") and v is not None:
                    outs.append((v, pt))
                elif a.direction in ("out", "inout"):
                    outs.append((V(fn.fresh("dc"), pt), pt))
        call = f"{b.py}({', '.join(compound_args + scalar_args)})"
        if sub.outs:
            self.calls.emit_call_with_outs(call, outs, False, fn, e.loc, may_exit=direct)
        else:
            fn.emit(call)
        for v, tmp in copy_back:
            fn.emit(f"{v.py}.assign({tmp})")
        return V("None", VOID)
