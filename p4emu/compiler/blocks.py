"""Parser and control instances (mixin of `ProgramGen`): each instance, top-level or
sub-block, becomes an apply function with its own frame class, locals, tables and
externs; `subblock_apply` generates the apply of a sub-block. Parser states are in
`parsers.py`, tables in `tables.py`, instances declared in a block in `instances.py`,
actions and functions in `actions.py`."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.compiler.analysis import apply_continuations, writes
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import (
    ActionB,
    ConstB,
    Fn,
    InstB,
    Scope,
    VarB,
    py_ident,
)
from p4emu.compiler.values import V, is_compound, zero_value
from p4emu.ir import declarations as D
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    VOID,
    StackT,
    StructT,
    Type,
)


@dataclass(eq=False)
class BlockCtx:
    kind: str
    name: str  # prefix of fully qualified names
    sig: str = ""
    frame: str = ""
    frame_fields: list[tuple[str, str]] = field(default_factory=list)
    prologue: list[str] = field(default_factory=list)
    scope: Scope | None = None
    params: list[tuple[D.BlockParam, Type, str]] = field(default_factory=list)
    apply_py: str = ""
    # tables applied by this block's body, directly or through its sub-blocks (p4c inlines
    # a sub-block at each apply, so applying the instance twice applies these twice)
    applied_tables: list[str] = field(default_factory=list)
    direct_names: set[str] = field(default_factory=set)  # instances made for `T.apply()`
    body: object = None  # a control's apply body as typed IR (`p4emu.ir.statements.Block`)


def full_name(prefix: str, decl: A.Decl) -> str:
    anno = A.find_annotation(decl.annotations, "name")
    local = anno.string() if anno is not None and anno.string() else decl.name
    if local.startswith("."):
        return local[1:]
    return f"{prefix}.{local}" if prefix else local


class BlockGen:
    # -- frames & params ---------------------------------------------------------------
    def _setup_params(self, ctx: BlockCtx, params: tuple[D.BlockParam, ...], scope: Scope) -> list[str]:
        compound = []
        for p in params:
            t = p.type
            if is_compound(t):
                py = f"p_{py_ident(p.name)}"
                compound.append(py)
            else:
                py = f"C.v_{py_ident(p.name)}"
                ctx.frame_fields.append((py[2:], zero_value(t)))
            scope.declare(p.name, VarB(t, py, writable=p.direction not in ("in", ""), direction=p.direction), p.loc)
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

    def _bind_ctor_args(self, inst: D.BlockInstance, scope: Scope) -> None:
        """Bind the checked constructor arguments of `inst` in its scope; an instance made
        for an argument is generated here (p4c inlines it into the block that receives it)."""
        for a in inst.args:
            if a.block is not None:
                saved = self.walk.in_parser
                sub = self.emit_block(a.block, self.next_id())
                self.walk.in_parser = saved
                b = a.block
                scope.bind(a.name, InstB(b.type.kind, b.type, b.name, sub.apply_py, None, {"ctx": sub, "direct": True}))
            elif a.instance is not None:
                scope.bind(a.name, a.instance)
            else:
                scope.bind(a.name, ConstB(a.type, a.value.const))

    # -- locals ------------------------------------------------------------------------
    def _local(self, d: A.Decl, ctx: BlockCtx, scope: Scope) -> None:
        if isinstance(d, A.VarDecl):
            if d.is_const:
                c = self.checker.check_const_decl(d, scope, d.loc)
                scope.declare(d.name, ConstB(c.type, c.const), d.loc)
                return
            t = self.checker.resolve_type(d.type, scope)
            name = f"v_{py_ident(d.name)}_{self.next_id()}"
            ctx.frame_fields.append((name, zero_value(t)))
            b = VarB(t, f"C.{name}")
            if d.init is not None:
                fn = self.new_fn(ctx)
                init = self.checker.check_initial(t, self.checker.check_expr(d.init, scope, t), d.loc)
                self.out.typed.append(init)
                v = self.emit_expr(fold(init), fn)
                if is_compound(t):
                    self.assign_value(V(b.py, t), v, fn)
                else:
                    fn.emit(f"{b.py} = {v.py}")
                ctx.prologue += fn.lines
            scope.declare(d.name, b, d.loc)
        elif isinstance(d, A.ActionDecl):
            b = ActionB(d, full_name(ctx.name, d), ctx)
            scope.declare(d.name, b, d.loc)
            b.scope = scope
            self.register_action(b)
        elif isinstance(d, A.TableDecl):
            self.gen_table(d, ctx, scope)
        elif isinstance(d, A.InstanceDecl):
            self.gen_instance(d, ctx, scope)
        elif isinstance(d, A.ValueSetDecl):
            vs = self.checker.check_value_set(d, full_name(ctx.name, d), scope)
            py = f"VS_{self.next_id()}"
            self.out.bindings[py] = ("value_set", vs.name)
            self.out.objects["value_sets"].append(vs)
            scope.declare(d.name, InstB("value_set", vs.type, vs.name, py, d), d.loc)
        elif isinstance(d, A.FunctionDecl):
            raise unsupported(d.loc, "functions declared inside controls/parsers")
        else:
            raise unsupported(d.loc, f"declaration {type(d).__name__} here")

    def new_fn(self, ctx: BlockCtx) -> Fn:
        fn = Fn(self.next_id)
        fn.owner = ctx
        fn.ret_type = None
        fn.epilogue = ""
        fn.kind = ctx.kind
        return fn

    # -- blocks ------------------------------------------------------------------------
    def gen_block(self, decl, prefix: str, ctor_args: list[A.Arg], outer_scope: Scope) -> BlockCtx:
        """An instance of parser/control `decl`, its names prefixed `prefix`, constructed
        with `ctor_args` (in `outer_scope`)."""
        uid = self.next_id()  # before the ids of the instances made for its arguments
        return self.emit_block(self.checker.check_block_instance(decl, prefix, ctor_args, outer_scope), uid)

    def emit_block(self, inst: D.BlockInstance, uid: int) -> BlockCtx:
        """The frame class and apply function `PA_n`/`CA_n` of checked instance `inst`."""
        decl, prefix = inst.decl, inst.name
        kind = "parser" if isinstance(decl, A.ParserDecl) else "control"
        ctx = BlockCtx(kind, prefix, frame=f"F_{uid}")
        ctx.decl_ast = decl
        scope = Scope(self.global_scope)
        ctx.scope = scope
        self._bind_ctor_args(inst, scope)
        compound = self._setup_params(ctx, inst.params, scope)
        ctx.sig = ", ".join(compound + ["C"])
        self.walk.in_parser = kind == "parser"
        for d in decl.locals:
            self._local(d, ctx, scope)
        ctx.apply_py = f"{'PA' if kind == 'parser' else 'CA'}_{uid}"
        fn = self.new_fn(ctx)
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
                    self.emit_out_init(py, t, fn)
                elif p.direction in ("in", "") and isinstance(t, (StructT, StackT)) and any(
                        writes(b, p.name) for b in bodies):
                    fn.emit(f"{py} = {py}.copy()")  # `in` is a copy: the block may change it
        for line in ctx.prologue:
            fn.lines.append(line)
        fn.epilogue = "".join(o + ", " for o in outs)
        if kind == "control":
            self.walk.in_parser = False
            self.env.apply_sites.update(apply_continuations(decl.body))
            if prefix in self.walk.top_prefixes or not outs:
                ctx.body = self.block(decl.body, Scope(scope), fn)
            else:  # an exit still copies scalar results out when arguments are substituted
                ctx.body = self._body_with_exit_copy_out(decl.body, Scope(scope), fn, outs)
        else:
            self.walk.in_parser = True
            states = self.gen_states(decl, ctx, scope)
            fn.emit(f"st = {states}")
            fn.emit("n = 0")
            fn.emit("while st is not None:")
            fn.emit(f"    st = st({ctx.sig})")
            fn.emit("    n += 1")
            fn.emit("    if n > 100000: raise ParserError(PARSER_TIMEOUT)")
            self.walk.in_parser = False
        if fn.epilogue:
            fn.emit(f"return ({fn.epilogue})")
        params = ", ".join([c for c in compound] + scalar_in)
        self.out.code += self._frame_source(ctx)
        self.out.code.append(f"def {ctx.apply_py}({params}):")
        self.out.code += fn.body()
        ctx.compound = compound
        ctx.scalar_in = scalar_in
        ctx.outs = outs
        return ctx

    def subblock_apply(self, e: I.Call, b: InstB, fn) -> V:
        sub: BlockCtx = b.data["ctx"]
        b.data["applies"] = b.data.get("applies", 0) + 1
        if sub.applied_tables:
            if b.data["applies"] > 1:
                raise P4CompileError(e.loc, f"unsupported: table {sub.applied_tables[0]} applied more than once "
                                            f"(through a second apply of {b.full_name}; BMv2 allows one application "
                                            "per table)")
            owner = getattr(fn, "owner", None)
            if owner is not None:
                owner.applied_tables.extend(sub.applied_tables)
        vals = self.emit_arguments(e.args, fn)
        # p4c inlines a sub-block by substituting its arguments when every call site passes
        # the same non-aliasing arguments; otherwise through temporaries copied out after
        # the body, a copy-out an exit skips (docs/v1model.md §3)
        direct = b.data.get("direct", True)
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
            self.emit_call_with_outs(call, outs, False, fn, e.loc, may_exit=direct)
        else:
            fn.emit(call)
        for v, tmp in copy_back:
            fn.emit(f"{v.py}.assign({tmp})")
        return V("None", VOID)
