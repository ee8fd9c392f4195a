"""Tables (`TableEmitter`, a pass of `ProgramGen`): a table checked into a typed `TableDecl`
(`passes/check_tables.py`) becomes its apply function `TA_n` (the key tuple -> `Table.lookup`
-> the dispatch dict `TD_n`, action id -> a wrapper `W_n_m` that unpacks the action data
and calls the action with the listed directional arguments); the `TableDecl` goes to
`out.objects["tables"]`, which `lower_control_plane.py` lowers for the control plane.
"""

from __future__ import annotations

from p4emu.compiler.blocks import new_fn
from p4emu.compiler.generated import BlockCtx, CompilePass
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import py_ident
from p4emu.compiler.values import unsigned_py
from p4emu.ir import blocks as B
from p4emu.ir import table_decls as T
from p4emu.lang.types import BitsT, BoolT, EnumT


class TableEmitter(CompilePass):
    """Tables -> their apply functions and action dispatch."""

    USES = ("exprs", "actions", "extern_objects", "calls")

    def emit_table(self, local: B.LocalTable, ctx: BlockCtx) -> None:
        t = local.table
        uid = self.next_id()
        fn = new_fn(ctx, self.next_id)
        key_py = []
        for k in t.keys:
            v = self.exprs.emit(fold(k.value), fn)
            if isinstance(v.ty, EnumT) and v.ty.underlying is not None:
                self.out.p4rt_enums[v.ty.name] = v.ty
            key_py.append(unsigned_py(v))
        # the actions are generated on first use, then the listed ones' wrappers, the
        # instances made in properties, p4c's NoAction: the order that numbers their names
        dispatch = [self._listed_action(a, ctx, uid) for a in t.actions if not a.implicit]
        for a in t.attached:
            if not isinstance(a, T.Attached):
                self.exprs.emit(fold(a), fn)
                continue
            if a.inline is not None:
                self.extern_objects.emit_instance(a.inline)
            if a.kind == "implementation":
                self.out.links.setdefault(a.name, []).append(t.name)
        dispatch += [self._listed_action(a, ctx, uid) for a in t.actions if a.implicit]
        self.out.objects["tables"].append(t)
        py, tbl, disp = f"TA_{uid}", f"TBL_{uid}", f"TD_{uid}"
        self.out.bindings[tbl] = ("table", t.name)
        self.out.dispatch_tables.append((disp, dispatch))
        fn.emit(f"r = {tbl}.lookup(({''.join(k + ', ' for k in key_py)}), PS.length)")
        meter = t.attached_name("meters")
        if meter is not None:
            fn.emit("PS.meter_color = r.meter_color")
            writer = self.out.direct_meter_writers.get(meter)
            if writer is not None:
                fn.emit(f"if r.meter_color is not None: {writer}({ctx.sig}, r.meter_color)")
        fn.emit(f"f = {disp}.get(r.action_id)")
        fn.emit(f"if f is not None: f({ctx.sig}, r.args)")
        fn.emit("return r")
        self.out.code.append(f"def {py}({ctx.sig}):")
        self.out.code += fn.body()
        local.binding.py = py

    def _listed_action(self, a: T.ListedAction, ctx: BlockCtx, uid) -> tuple[str, str]:
        """(action name, its wrapper): the wrapper unpacks the action data, converts them
        from the control plane's unsigned numbers and calls the action."""
        b = a.binding
        self.actions.ensure_action(b)
        wname = f"W_{uid}_{self.next_id()}"
        fn = new_fn(ctx, self.next_id)
        data = [p for p in b.params if p.direction == ""]
        if data:
            fn.emit(f"{', '.join(p.binding.py for p in data)}, = args")
        for p in data:
            t, py = p.type, p.binding.py
            if isinstance(t, BitsT) and t.signed:
                h = 1 << (t.width - 1)
                fn.emit(f"{py} = ({py} ^ {h}) - {h}")
            elif isinstance(t, BoolT):
                fn.emit(f"{py} = {py} != 0")
        bound = iter(self.calls.emit_arguments(a.args, fn))
        call_args = []
        outs = []
        for p in b.decl.params:
            if p.direction == "":
                call_args.append(f"a_{py_ident(p.name)}")
                continue
            v = next(bound)
            call_args.append(v.py)
            if p.direction in ("out", "inout"):
                outs.append((v, v.ty))
        prefix = [ctx.sig] if b.owner is not None else []
        self.calls.emit_call_with_outs(f"{b.py}({', '.join(prefix + call_args)})", outs, False, fn, a.loc,
                                 may_exit=True)
        self.out.code.append(f"def {wname}({ctx.sig}, args):")
        self.out.code += fn.body()
        return a.name, wname

