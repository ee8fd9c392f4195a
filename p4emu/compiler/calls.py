"""Calls: argument binding and type inference, actions, functions, methods of headers,
stacks, tables, sub-blocks and extern objects (mixin of `ProgramGen`).

Calling convention of generated functions: compound values are passed by reference and
copied by the callee where p4c would copy (directional parameters of actions and
functions); out/inout results come back as a tuple (after the return value, if any) and
are copied out by the caller, also when the callee exits.
"""

from __future__ import annotations

from p4emu.compiler.passes.check_calls import unify_param
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import ActionB, ExternFuncB, FuncB, InstB, Scope, TypeB
from p4emu.compiler.values import V, is_compound, zero_value
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import (
    VOID,
    BitsT,
    BoolT,
    ObjectT,
    StackT,
    StructT,
    TupleT,
    Type,
    TypeVarT,
    VarbitT,
)


class CallGen:
    # -- calls -------------------------------------------------------------------------
    def bind_args(self, params: list[A.Param], args: list[A.Arg], loc, what: str) -> list[tuple[A.Param, A.Arg | None]]:
        named = [a for a in args if a.name is not None]
        if named and len(named) != len(args):
            raise P4CompileError(loc, f"{what}: cannot mix named and positional arguments")
        if named:
            by_name = {a.name: a for a in args}
            out = []
            for p in params:
                a = by_name.pop(p.name, None)
                if a is None and p.default is None and p.direction != "out":
                    raise P4CompileError(loc, f"{what}: missing argument {p.name}")
                out.append((p, a))
            if by_name:
                raise P4CompileError(loc, f"{what}: no parameter named {next(iter(by_name))}")
            return out
        if len(args) > len(params):
            raise P4CompileError(loc, f"{what}: expected {len(params)} arguments, got {len(args)}")
        out = []
        for i, p in enumerate(params):
            if i < len(args):
                out.append((p, args[i]))
            elif p.default is not None:
                out.append((p, None))
            else:
                raise P4CompileError(loc, f"{what}: expected {len(params)} arguments, got {len(args)}")
        return out

    def call(self, e: A.Call, scope: Scope, fn, want, as_statement: bool) -> V:
        f = e.func
        if isinstance(f, A.Member):
            base = self.expr(f.expr, scope, fn)
            f.expr.ty = base.ty
            return self.method_call(e, base, f.name, scope, fn, want, as_statement)
        target = self.expr(f, scope, fn)
        b = target.ref
        if isinstance(b, ActionB):
            if getattr(fn, "kind", "") == "parser" or self.walk.in_parser:
                # p4c (TypeInference): actions belong to controls
                raise P4CompileError(e.loc, f"{b.decl.name}: Action calls are not allowed within parsers")
            return self.action_call(e, b, scope, fn, as_statement)
        if isinstance(b, FuncB):
            return self.function_call(e, b, scope, fn, want, as_statement)
        if isinstance(b, ExternFuncB):
            return self.extern_function_call(e, b, scope, fn, want, as_statement)
        if isinstance(b, TypeB) and isinstance(b.ty, (BitsT, BoolT)) and len(e.args) == 1:
            return self.cast(self.expr(e.args[0].value, scope, fn), b.ty, e.loc)
        raise P4CompileError(e.loc, "called expression is not a function, action or method")

    def gen_args(self, pairs, tyenv, scope, fn, loc, what: str, type_params=()) -> list[tuple[A.Param, V | None, Type]]:
        """Type-check arguments against parameters; infers type variables into `tyenv`.

        Arguments are evaluated left to right; when a later one emits statements (a call
        with side effects), earlier `in`/`inout` values are copied in before them, as
        p4c's SideEffectOrdering does. A copied-in `inout` argument is a V whose ref is
        ("copyin", lvalue): pass its `py`, copy out to the lvalue (`copy_out` unwraps)."""
        out = []
        emitted: list[list[str]] = []
        for p, a in pairs:
            _, lines = self.capture(fn, lambda p=p, a=a: self._gen_arg(p, a, tyenv, scope, fn, loc, what,
                                                                       type_params, out))
            emitted.append(lines)
        for i, lines in enumerate(emitted):
            if fn is not None and hasattr(fn, "lines"):
                fn.lines.extend(lines)
            p, v, pt = out[i]
            if v is None or p.direction == "out" or not any(emitted[i + 1:]):
                continue
            snap = self.snapshot(v, fn)
            out[i] = (p, V(snap.py, v.ty, snap.const, ("copyin", v)) if p.direction == "inout" else snap, pt)
        return out

    def _gen_arg(self, p, a, tyenv, scope, fn, loc, what, type_params, out) -> V | None:
        """One argument of `gen_args`, appended to `out`."""
        pt = self.param_type(p, tyenv, type_params, scope)
        if a is None or a.value is None:
            if a is None and p.default is not None:
                v = self.coerce(self.expr(p.default, scope, fn, pt), pt, loc)
                out.append((p, v, pt))
            else:
                if p.direction != "out":
                    raise P4CompileError(loc, f"{what}: don't-care argument for non-out parameter {p.name}")
                out.append((p, None, pt))
            return None
        want = pt if not isinstance(pt, TypeVarT) else None
        if isinstance(pt, TypeVarT) and pt.name in tyenv:
            want = tyenv[pt.name]
            pt = want
        if p.direction in ("out", "inout"):
            v = self.lvalue(a.value, scope, fn)
        else:
            v = self.expr(a.value, scope, fn, want)
        if not isinstance(pt, TypeVarT) and not is_compound(pt) and not isinstance(pt, (TupleT, VarbitT)):
            if isinstance(pt, BitsT) and isinstance(v.ty, BitsT) and pt != v.ty and p.direction == "":
                # directionless (constructor/extern) params accept implicit casts in p4c
                v = self.cast(v, pt, a.loc)
            v = self.coerce(v, pt, a.loc)
        else:
            unified = unify_param(pt, v.ty, tyenv)
            if unified is None:
                raise P4CompileError(a.loc, f"{what}: argument type {v.ty} does not match {pt}")
            pt = unified
        out.append((p, v, pt))
        return v

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
            self.store(lv, value_py, fn)

    def action_call(self, e: A.Call, b: ActionB, scope, fn, as_statement) -> V:
        if not as_statement:
            raise P4CompileError(e.loc, "actions cannot be called in expressions")
        decl = b.decl
        pairs = self.bind_args(decl.params, e.args, e.loc, decl.name)
        outs = []
        args_py = []
        for p, v, pt in self.gen_args(pairs, {}, scope, fn, e.loc, decl.name):
            if v is None:
                tmp = fn.fresh("dc")
                fn.emit(f"{tmp} = {zero_value(pt)}")
                v = V(tmp, pt)
            args_py.append(v.py)
            if p.direction in ("out", "inout"):
                outs.append((v, pt))
        prefix = []
        if b.owner is not None:
            if b.owner is not getattr(fn, "owner", None):
                raise P4CompileError(e.loc, f"action {decl.name} is not callable here")
            prefix = [b.owner.sig]
        self.ensure_action(b)
        self.emit_call_with_outs(f"{b.py}({', '.join(prefix + args_py)})", outs, False, fn, e.loc,
                                 may_exit=True)
        return V("None", VOID)

    def function_call(self, e: A.Call, b: FuncB, scope, fn, want, as_statement) -> V:
        decl = b.decl
        tyenv: dict = {}
        if e.type_args:
            if len(e.type_args) != len(decl.type_params):
                raise P4CompileError(e.loc, f"{decl.name}: expected {len(decl.type_params)} type arguments")
            tyenv = {tp: self.resolve_type(ta, scope) for tp, ta in zip(decl.type_params, e.type_args, strict=True)}
        pairs = self.bind_args(decl.params, e.args, e.loc, decl.name)
        args = self.gen_args(pairs, tyenv, scope, fn, e.loc, decl.name, decl.type_params)
        missing = [tp for tp in decl.type_params if tp not in tyenv]
        if missing:
            raise P4CompileError(e.loc, f"{decl.name}: cannot infer type argument {missing[0]}")
        outs = []
        for p, v, pt in args:
            if p.direction in ("out", "inout"):
                if v is None:
                    v = V(fn.fresh("dc"), pt)
                    fn.emit(f"{v.py} = {zero_value(pt)}")
                outs.append((v, pt))
        ret_t = self.resolve_type(decl.ret, self.tvar_scope(scope, tyenv))
        fname = self.ensure_function(b, tyenv)
        call_py = f"{fname}({', '.join(v.py if v else zero_value(pt) for _, v, pt in args)})"
        has_ret = not isinstance(ret_t, type(VOID))
        if outs and not as_statement and fn is not None:
            r = self.emit_call_with_outs(call_py, outs, has_ret, fn, e.loc)
            return V(r or "None", ret_t)
        if outs:
            r = self.emit_call_with_outs(call_py, outs, has_ret, fn, e.loc)
            return V(r or "None", ret_t)
        if as_statement:
            fn.emit(call_py)
            return V("None", ret_t)
        return V(call_py, ret_t)

    def method_call(self, e: A.Call, base: V, name: str, scope, fn, want, as_statement) -> V:
        t = base.ty
        if isinstance(t, StructT):
            return self.header_method(e, base, name, as_statement, fn)
        if isinstance(t, StackT):
            if name in ("push_front", "pop_front"):
                if len(e.args) != 1:
                    raise P4CompileError(e.loc, f"{name} expects one argument")
                n = self.const_int(e.args[0].value, scope)
                fn.emit(f"{base.py}.{name}({n})")
                return V("None", VOID)
            raise P4CompileError(e.loc, f"header stack has no method {name}")
        if isinstance(t, ObjectT):
            if t.kind == "packet_in":
                return self.packet_in_call(e, base, name, scope, fn, want, as_statement)
            if t.kind == "packet_out":
                return self.packet_out_call(e, base, name, scope, fn)
            b = base.ref
            if t.kind in ("control", "parser") and not isinstance(b, InstB) and name == "apply":
                b = self.direct_instance(t, fn, e.loc)
            if t.kind == "table":
                if name != "apply" or e.args:
                    raise P4CompileError(e.loc, f"table {t.name}: only apply() can be called")
                if getattr(fn, "kind", "") in ("action", "function"):
                    raise P4CompileError(e.loc, f"{t.name}.apply: tables cannot be applied from {fn.kind}s")
                # where control goes after this application (None: used as a value)
                sites = b.data.setdefault("sites", [])
                sites.append(self.env.apply_sites.get(id(e)))
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
            if t.kind in ("control", "parser"):
                if name != "apply":
                    raise P4CompileError(e.loc, f"{t.name} has no method {name}")
                return self.subblock_apply(e, b, scope, fn, as_statement)
            if t.kind == "extern":
                return self.extern_method_call(e, base, name, scope, fn, want, as_statement)
        raise P4CompileError(e.loc, f"{t} has no method {name}")

    def header_method(self, e: A.Call, base: V, name: str, as_statement, fn) -> V:
        t: StructT = base.ty
        if e.args:
            raise P4CompileError(e.loc, f"{name} takes no arguments")
        if name in ("isValid", "minSizeInBits", "minSizeInBytes"):  # a statement of its own
            return self.emit_expr(fold(self.header_query(e, I.Evaluated(t, e.loc, base), name)), fn)
        if name in ("setValid", "setInvalid"):
            if t.kind != "header":
                raise P4CompileError(e.loc, f"{name}: {t.name} is not a header")
            if not as_statement:
                raise P4CompileError(e.loc, f"{name}() does not return a value")
            func = e.func
            union_parent = None
            if isinstance(func, A.Member) and isinstance(func.expr, A.Member):
                pt = func.expr.expr.ty
                if isinstance(pt, StructT) and pt.kind == "header_union":
                    union_parent = func.expr
            # BMv2's packet length register follows validity flips (docs/v1model.md §1)
            h = fn.fresh("h")
            fn.emit(f"{h} = {base.py}")
            if name == "setValid":
                fn.emit(f"if not {h}.valid: PS.len_delta += {h}.size_bytes()")
                fn.emit(f"{h}.set_valid()")
                if union_parent is not None:
                    par = base.py.rsplit(".", 1)[0]
                    fn.emit(f"{par}.only_valid('f_{union_parent.name}')")
            else:
                fn.emit(f"if {h}.valid: PS.len_delta -= {h}.size_bytes()")
                fn.emit(f"{h}.valid = False")
            return V("None", VOID)
        raise P4CompileError(e.loc, f"{t.name} has no method {name}")
