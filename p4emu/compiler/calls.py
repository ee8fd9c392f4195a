"""Calls: the emission of checked calls (`ir.Call`, from `passes/check_calls.py`) of
actions, functions, methods of headers, stacks, tables, sub-blocks and extern objects
(`CallEmitter`, a pass of `ProgramGen`). The callee's own code is another pass's: actions
and functions `actions.py`, extern functions `externs.py`, extern objects'
methods `extern_objects.py`, packet methods `packets.py`, sub-blocks `blocks.py`.

Calling convention of generated functions: compound values are passed by reference and
copied by the callee where p4c would copy (directional parameters of actions and
functions); out/inout results come back as a tuple (after the return value, if any) and
are copied out by the caller, also when the callee exits.
"""

from __future__ import annotations

from p4emu.compiler.assignments import store
from p4emu.compiler.externs import EXTERN_FUNCTIONS
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.ordering import capture, snapshot
from p4emu.compiler.passes.emit import reconvert, unconverted
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import ActionB, ExternFuncB, FuncB
from p4emu.compiler.values import V, zero_value
from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import (
    VOID,
    BitsT,
    ObjectT,
    StackT,
    StructT,
    Type,
)


class CallEmitter(CompilePass):
    """Checked calls -> Python calls, with their arguments and out/inout copy-out."""

    USES = ("exprs", "actions", "extern_functions", "extern_objects", "packets", "blocks")

    def emit_call(self, e: I.Call, fn, as_statement: bool) -> V:
        c = e.callee
        if isinstance(c, I.MethodRef):
            return self._emit_method_call(e, self.exprs.emit(fold(c.base), fn), c.name, fn, as_statement)
        b = c.binding
        if isinstance(b, ActionB):
            return self._emit_action_call(e, b, fn)
        if isinstance(b, FuncB):
            return self._emit_function_call(e, b, fn, as_statement)
        if isinstance(b, ExternFuncB):
            r = EXTERN_FUNCTIONS[b.name](self.extern_functions, e, fn)
            return r if r is not None else V("None", VOID)
        raise AssertionError(f"unchecked call of {b}")

    def emit_arguments(self, args: tuple[I.Argument, ...], fn) -> list[V | None]:
        """The values of checked arguments, evaluated left to right; when a later one emits
        statements (a call with side effects), earlier `in`/`inout` values are copied in
        before them, as p4c's SideEffectOrdering does. A copied-in `inout` argument is a V
        whose ref is ("copyin", lvalue): pass its `py`, copy out to the lvalue (`copy_out`
        unwraps)."""
        parts = [capture(fn, lambda a=a: self._emit_argument(a, fn)) for a in args]
        out: list[V | None] = []
        for i, (a, (v, lines)) in enumerate(zip(args, parts, strict=True)):
            if fn is not None and hasattr(fn, "lines"):
                fn.lines.extend(lines)
            if v is not None and a.direction != "out" and any(later for _, later in parts[i + 1:]):
                snap = snapshot(v, fn)
                v = V(snap.py, v.ty, snap.const, ("copyin", v)) if a.direction == "inout" else snap
            out.append(v)
        return out

    def _emit_argument(self, a: I.Argument, fn) -> V | None:
        if a.value is None:
            return None
        if a.direction in ("out", "inout"):
            return reconvert(a.value, self.exprs.emit_lvalue(unconverted(a.value), fn))
        return self.exprs.emit(fold(a.value), fn)

    def emit_call_with_outs(self, call_py: str, outs: list[tuple[V, Type]], has_ret: bool, fn, loc,
                            may_exit: bool = False) -> str | None:
        """Emit a call whose out/inout results come back as a tuple (after the return value,
        if any) and copy them out; with `may_exit`, an exit inside the callee still copies
        them out (the callee attaches them to the ExitSignal). Returns the Python
        expression of the return value, if any."""
        if not outs:
            if has_ret:
                return call_py
            fn.emit(call_py)
            return None
        for lv, t in outs:
            if isinstance(lv.ty, BitsT) and isinstance(t, BitsT) and lv.ty != t:
                raise P4CompileError(loc, f"out argument type {lv.ty} does not match {t}")
        tmp = fn.fresh("res")
        if may_exit:
            fn.emit("try:")
            fn.emit(f"    {tmp} = {call_py}")
            fn.emit("except ExitSignal as x:")
            fn.indent += 1
            for i, (lv, _t) in enumerate(outs):
                self.copy_out(lv, f"x.outs[{i}]", fn)
            fn.emit("raise")
            fn.indent -= 1
        else:
            fn.emit(f"{tmp} = {call_py}")
        off = 1 if has_ret else 0
        for i, (lv, _t) in enumerate(outs):
            self.copy_out(lv, f"{tmp}[{i + off}]", fn)
        return f"{tmp}[0]" if has_ret else None

    def copy_out(self, lv: V, value_py: str, fn) -> None:
        if isinstance(lv.ref, tuple) and lv.ref[0] == "copyin":
            lv = lv.ref[1]  # the value was copied in early; the result goes to the lvalue
        if isinstance(lv.ty, (StructT, StackT)):
            fn.emit(f"{lv.py}.assign({value_py})")
        else:
            store(lv, value_py, fn)

    def _emit_action_call(self, e: I.Call, b: ActionB, fn) -> V:
        outs = []
        args_py = []
        for a, v in zip(e.args, self.emit_arguments(e.args, fn), strict=True):
            if v is None:
                tmp = fn.fresh("dc")
                fn.emit(f"{tmp} = {zero_value(a.type)}")
                v = V(tmp, a.type)
            args_py.append(v.py)
            if a.direction in ("out", "inout"):
                outs.append((v, a.type))
        prefix = []
        if b.owner is not None:
            if b.owner.ctx is not getattr(fn, "owner", None):
                raise P4CompileError(e.loc, f"action {b.decl.name} is not callable here")
            prefix = [b.owner.ctx.sig]
        self.actions.ensure_action(b)
        self.emit_call_with_outs(f"{b.py}({', '.join(prefix + args_py)})", outs, False, fn, e.loc,
                                 may_exit=True)
        return V("None", VOID)

    def _emit_function_call(self, e: I.Call, b: FuncB, fn, as_statement) -> V:
        vals = self.emit_arguments(e.args, fn)
        outs = []
        for a, v in zip(e.args, vals, strict=True):
            if a.direction in ("out", "inout"):
                if v is None:
                    v = V(fn.fresh("dc"), a.type)
                    fn.emit(f"{v.py} = {zero_value(a.type)}")
                outs.append((v, a.type))
        fname = self.actions.ensure_function(b, dict(e.type_args))
        call_py = f"{fname}({', '.join(v.py if v else zero_value(a.type) for a, v in zip(e.args, vals, strict=True))})"
        has_ret = not isinstance(e.type, type(VOID))
        if outs:
            r = self.emit_call_with_outs(call_py, outs, has_ret, fn, e.loc)
            return V(r or "None", e.type)
        if as_statement:
            fn.emit(call_py)
            return V("None", e.type)
        return V(call_py, e.type)

    def _emit_method_call(self, e: I.Call, base: V, name: str, fn, as_statement) -> V:
        t = base.ty
        if isinstance(t, StructT):
            return self._emit_header_method(e, base, name, fn)
        if isinstance(t, StackT):
            fn.emit(f"{base.py}.{name}({e.args[0].value.const})")
            return V("None", VOID)
        if t.kind == "packet_in":
            return self.packets.emit_packet_in_call(e, base, name, fn, as_statement)
        if t.kind == "packet_out":
            return self.packets.emit_packet_out_call(e, base, fn)
        if t.kind == "extern":
            return self.extern_objects.emit_method_call(e, base, name, fn)
        b = base.ref
        if t.kind == "table":
            if getattr(fn, "kind", "") in ("action", "function"):
                raise P4CompileError(e.loc, f"{t.name}.apply: tables cannot be applied from {fn.kind}s")
            # where control goes after this application (None: used as a value)
            sites = b.sites
            sites.append(e.site)
            if len(sites) > 1 and (None in sites or len(set(sites)) > 1):
                raise P4CompileError(e.loc, "Program is not supported by this target, because "
                                            f"table {b.full_name} has multiple successors")
            if len(sites) == 1:
                fn.owner.applied_tables.append(b.full_name)
            call = f"{b.py}({fn.owner.sig})"
            if as_statement:
                fn.emit(call)
                return V("None", VOID)
            return V(call, ObjectT("apply_result", "apply_result", b), None, b)
        return self.blocks.emit_sub_block_apply(e, b, fn)

    def _emit_header_method(self, e: I.Call, base: V, name: str, fn) -> V:
        """`setValid()` / `setInvalid()`."""
        header = e.callee.base
        union = header.base if isinstance(header, I.Field) else None
        in_union = union is not None and isinstance(union.type, StructT) and union.type.kind == "header_union"
        # BMv2's packet length register follows validity flips (docs/v1model.md §1)
        h = fn.fresh("h")
        fn.emit(f"{h} = {base.py}")
        if name == "setValid":
            fn.emit(f"if not {h}.valid: PS.len_delta += {h}.size_bytes()")
            fn.emit(f"{h}.set_valid()")
            if in_union:
                par = base.py.rsplit(".", 1)[0]
                fn.emit(f"{par}.only_valid('f_{header.name}')")
        else:
            fn.emit(f"if {h}.valid: PS.len_delta -= {h}.size_bytes()")
            fn.emit(f"{h}.valid = False")
        return V("None", VOID)
