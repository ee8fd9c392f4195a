"""Statements and calls (mixin of `ProgramGen`).

Calling convention of generated functions: compound values (headers, structs, stacks,
externs) are passed by reference; scalar `in` by value; scalar `out`/`inout` final values
are returned (after the return value, if any) and assigned by the caller.
"""

from __future__ import annotations

from p4emu.compiler.exprs import V, lit
from p4emu.compiler.scope import (
    ActionB,
    ConstB,
    ExternFuncB,
    FuncB,
    InstB,
    Scope,
    TypeB,
    VarB,
)
from p4emu.frontend import ast as A
from p4emu.frontend.errors import P4CompileError, unsupported
from p4emu.frontend.types import (
    BOOL,
    DONTCARE,
    INFINT,
    VOID,
    BitsT,
    BoolT,
    EnumT,
    InfIntT,
    ObjectT,
    StackT,
    StructT,
    TupleT,
    Type,
    TypeVarT,
    VarbitT,
)


def is_compound(t: Type) -> bool:
    return isinstance(t, (StructT, StackT, ObjectT))


def zero_value(t: Type) -> str:
    if isinstance(t, BoolT):
        return "False"
    if isinstance(t, VarbitT):
        return "(0, 0)"
    if isinstance(t, TupleT):
        return "(" + "".join(zero_value(x) + ", " for x in t.items) + ")"
    if isinstance(t, StructT):
        return f"{t.py}()"
    if isinstance(t, StackT):
        return f"Stack({t.elem.py}, {t.size})"
    return "0"


class StmtGen:
    # -- statements --------------------------------------------------------------------
    def block(self, b: A.Block, scope: Scope, fn) -> None:
        inner = Scope(scope)
        for s in b.stmts:
            self.stmt(s, inner, fn)

    def stmt(self, s: A.Stmt, scope: Scope, fn) -> None:
        m = getattr(self, "_s_" + type(s).__name__, None)
        if m is None:
            raise unsupported(s.loc, f"statement {type(s).__name__}")
        m(s, scope, fn)

    def _s_Block(self, s, scope, fn):
        self.block(s, scope, fn)

    def _s_Empty(self, s, scope, fn):
        pass

    def _s_VarDecl(self, s: A.VarDecl, scope: Scope, fn):
        t = self.resolve_type(s.type, scope)
        if s.is_const:
            v = self.expr(s.init, scope, fn, t)
            v = self.coerce(v, t, s.init.loc)
            if v.const is not None:
                scope.bind(s.name, ConstB(t, v.const))
                return
            py = fn.fresh("c_" + s.name)
            fn.emit(f"{py} = {v.py}")
            scope.bind(s.name, VarB(t, py, writable=False))
            return
        py = fn.fresh("v_" + s.name)
        if s.init is not None:
            v = self.expr(s.init, scope, fn, t)
            if is_compound(t):
                fn.emit(f"{py} = {zero_value(t)}")
                self.assign_value(V(py, t), v, s.init.loc, fn)
            else:
                v = self.coerce(v, t, s.init.loc)
                fn.emit(f"{py} = {v.py}")
        else:
            fn.emit(f"{py} = {zero_value(t)}")
        scope.bind(s.name, VarB(t, py))

    def _s_InstanceDecl(self, s, scope, fn):
        raise P4CompileError(s.loc, "instantiations are not allowed inside blocks")

    def _s_Assign(self, s: A.Assign, scope: Scope, fn):
        if isinstance(s.lhs, A.Slice):
            self._assign_slice(s, scope, fn)
            return
        if isinstance(s.lhs, A.DontCare):
            self.expr(s.rhs, scope, fn)
            return
        lv = self.lvalue(s.lhs, scope, fn)
        v = self.expr(s.rhs, scope, fn, lv.ty)
        self.assign_value(lv, v, s.rhs.loc, fn)

    def lvalue(self, e: A.Expr, scope: Scope, fn) -> V:
        if isinstance(e, A.Slice):
            base = self.lvalue(e.expr, scope, fn)
            if not isinstance(base.ty, BitsT):
                raise P4CompileError(e.loc, f"cannot slice a value of type {base.ty}")
            hi = self.const_int(e.hi, scope)
            lo = self.const_int(e.lo, scope)
            if not (0 <= lo <= hi < base.ty.width):
                raise P4CompileError(e.loc, f"slice [{hi}:{lo}] out of range of {base.ty}")
            read = self.expr(e, scope, fn)
            return V(read.py, read.ty, None, ("slice", base, hi, lo))
        root = e
        while isinstance(root, (A.Member, A.Index, A.Slice)):
            root = root.expr
        v = self.expr(e, scope, fn)
        if isinstance(root, A.Path):
            b = root.ref
            if isinstance(b, VarB) and not b.writable:
                raise P4CompileError(e.loc, f"cannot assign to {root.name}: not writable")
            if not isinstance(b, VarB):
                raise P4CompileError(e.loc, f"cannot assign to {root.name}")
        elif not (isinstance(root, A.Call)):
            raise P4CompileError(e.loc, "expression is not assignable")
        if isinstance(e, A.Member) and isinstance(e.expr.ty, StackT) and e.name in ("lastIndex", "size"):
            raise P4CompileError(e.loc, f"{e.name} is not assignable")
        return v

    def assign_value(self, lv: V, v: V, loc, fn) -> None:
        t = lv.ty
        if isinstance(t, StructT):
            if isinstance(v.ref, tuple) and v.ref[0] in ("list", "struct") and not (
                isinstance(v.ty, StructT) and v.ref[0] == "struct"
            ):
                vals = v.ref[1]
                if len(vals) != len(t.fields):
                    raise P4CompileError(loc, f"{t.name} has {len(t.fields)} fields, got {len(vals)}")
                tmp = fn.fresh("t")
                fn.emit(f"{tmp} = {lv.py}")
                for (fname, ftype), fv in zip(t.fields, vals, strict=True):
                    self.assign_value(V(f"{tmp}.f_{fname}", ftype), fv, loc, fn)
                if t.kind == "header":
                    fn.emit(f"{tmp}.valid = True")
                return
            if isinstance(v.ty, StructT) and v.ty is t:
                fn.emit(f"{lv.py}.assign({v.py})")
                return
            if isinstance(v.ty, TupleT) and isinstance(v.const, tuple) and not v.const:
                if t.kind == "header":
                    fn.emit(f"{lv.py}.valid = False")
                    return
            raise P4CompileError(loc, f"type mismatch: cannot assign {v.ty} to {t}")
        if isinstance(t, StackT):
            if isinstance(v.ty, StackT) and v.ty.elem is t.elem and v.ty.size == t.size:
                fn.emit(f"{lv.py}.assign({v.py})")
                return
            raise P4CompileError(loc, f"type mismatch: cannot assign {v.ty} to {t}")
        if isinstance(t, TupleT):
            if not isinstance(v.ty, TupleT) or len(v.ty.items) != len(t.items):
                raise P4CompileError(loc, f"type mismatch: cannot assign {v.ty} to {t}")
            fn.emit(f"{lv.py} = {v.py}")
            return
        if isinstance(t, VarbitT):
            if not isinstance(v.ty, VarbitT):
                raise P4CompileError(loc, f"type mismatch: cannot assign {v.ty} to {t}")
            fn.emit(f"{lv.py} = {v.py}")
            return
        v = self.coerce(v, t, loc)
        fn.emit(f"{lv.py} = {v.py}")

    def _assign_slice(self, s: A.Assign, scope, fn) -> None:
        lv = self.lvalue(s.lhs, scope, fn)
        v = self.coerce(self.expr(s.rhs, scope, fn, lv.ty), lv.ty, s.rhs.loc)
        self.store(lv, v.py, fn)

    def store(self, lv: V, value_py: str, fn) -> None:
        """Write a Python value to an lvalue (which may be a slice)."""
        if not (isinstance(lv.ref, tuple) and lv.ref[0] == "slice"):
            fn.emit(f"{lv.py} = {value_py}")
            return
        _, base, hi, lo = lv.ref
        w = hi - lo + 1
        v = V(value_py, BitsT(w))
        m = ((1 << w) - 1) << lo
        keep = base.ty.mask & ~m
        py = f"(({base.py} & {keep}) | (({v.py} << {lo}) & {m}))"
        if base.ty.signed:
            h = 1 << (base.ty.width - 1)
            py = f"(((({base.py} & {base.ty.mask}) & {keep}) | (({v.py} << {lo}) & {m})) ^ {h}) - {h}"
        self.store(base, py, fn)

    def _s_CallStmt(self, s: A.CallStmt, scope, fn):
        self.call(s.call, scope, fn, None, as_statement=True)

    def _s_If(self, s: A.If, scope, fn):
        c = self.expr(s.cond, scope, fn)
        if not isinstance(c.ty, BoolT):
            raise P4CompileError(s.cond.loc, f"if: condition must be bool, got {c.ty}")
        fn.emit(f"if {c.py}:")
        fn.indent += 1
        n = len(fn.lines)
        self.stmt(s.then, Scope(scope), fn)
        if len(fn.lines) == n:
            fn.emit("pass")
        fn.indent -= 1
        if s.other is not None:
            fn.emit("else:")
            fn.indent += 1
            n = len(fn.lines)
            self.stmt(s.other, Scope(scope), fn)
            if len(fn.lines) == n:
                fn.emit("pass")
            fn.indent -= 1

    def _s_Switch(self, s: A.Switch, scope, fn):
        v = self.expr(s.expr, scope, fn)
        tmp = fn.fresh("sw")
        fn.emit(f"{tmp} = {v.py}")
        is_action_run = isinstance(v.ty, ObjectT) and v.ty.kind == "action_run"
        pending: list[str] = []
        first = True
        has_default = False
        for case in s.cases:
            for label in case.labels:
                if isinstance(label, A.DefaultKey):
                    has_default = True
                    pending.append("True")
                elif is_action_run:
                    pending.append(f"{tmp} == {self.action_id_ref(label, v.ty, scope)}")
                else:
                    lv = self.coerce(self.const_value(label, scope, v.ty), v.ty, label.loc)
                    pending.append(f"{tmp} == {lv.py}")
            if case.body is None:
                continue
            cond = " or ".join(pending) if "True" not in pending else "True"
            pending = []
            fn.emit(f"{'if' if first else 'elif'} {cond}:")
            first = False
            fn.indent += 1
            n = len(fn.lines)
            self.block(case.body, scope, fn)
            if len(fn.lines) == n:
                fn.emit("pass")
            fn.indent -= 1
        del has_default

    def _s_For(self, s: A.For, scope: Scope, fn):
        inner = Scope(scope)
        loops = fn.__dict__.setdefault("loops", [])
        if s.var is not None:
            t = self.resolve_type(s.var.type, inner)
            py = fn.fresh("v_" + s.var.name)
            it = s.iterable
            if isinstance(it, A.Range):
                lo = self.coerce(self.expr(it.low, inner, fn, t), t, it.loc)
                hi = self.coerce(self.expr(it.high, inner, fn, t), t, it.loc)
                src = f"range({lo.py}, {hi.py} + 1)"
            else:
                v = self.expr(it, inner, fn)
                if isinstance(v.ty, StackT):
                    src = f"{v.py}.items"
                elif isinstance(v.ty, TupleT):
                    src = v.py
                else:
                    raise unsupported(it.loc, f"for-in over a value of type {v.ty}")
            inner.bind(s.var.name, VarB(t, py))
            fn.emit(f"for {py} in {src}:")
            fn.indent += 1
            loops.append(([], fn.indent))
            n = len(fn.lines)
            self.stmt(s.body, Scope(inner), fn)
            if len(fn.lines) == n:
                fn.emit("pass")
            loops.pop()
            fn.indent -= 1
            return
        for st in s.init:
            self.stmt(st, inner, fn)
        update_fn_lines: list[str] = []
        probe = type(fn)(fn._counter)
        probe.indent = fn.indent + 1
        probe.__dict__.update({k: v for k, v in fn.__dict__.items() if k not in ("lines", "indent")})
        for st in s.update:
            self.stmt(st, inner, probe)
        update_fn_lines = probe.lines
        fn.emit("while True:")
        fn.indent += 1
        if s.cond is not None:
            c = self.expr(s.cond, inner, fn)
            if not isinstance(c.ty, BoolT):
                raise P4CompileError(s.cond.loc, f"for: condition must be bool, got {c.ty}")
            fn.emit(f"if not {c.py}: break")
        loops.append((update_fn_lines, fn.indent))
        self.stmt(s.body, Scope(inner), fn)
        loops.pop()
        fn.lines.extend(update_fn_lines)
        fn.indent -= 1

    def _s_Break(self, s, scope, fn):
        if not fn.__dict__.get("loops"):
            raise P4CompileError(s.loc, "break outside a loop")
        fn.emit("break")

    def _s_Continue(self, s, scope, fn):
        loops = fn.__dict__.get("loops")
        if not loops:
            raise P4CompileError(s.loc, "continue outside a loop")
        # the update clause runs before the next iteration (re-indented to this depth)
        lines, indent = loops[-1]
        for line in lines:
            fn.lines.append("    " * fn.indent + line[4 * indent:])
        fn.emit("continue")

    def _s_Exit(self, s, scope, fn):
        fn.emit("raise ExitSignal()")

    def _s_Return(self, s: A.Return, scope, fn):
        ret_type = getattr(fn, "ret_type", None)
        epilogue = getattr(fn, "epilogue", "")
        if s.value is not None:
            if ret_type is None or isinstance(ret_type, type(VOID)):
                raise P4CompileError(s.loc, "return with a value outside a function")
            v = self.expr(s.value, scope, fn, ret_type)
            if is_compound(ret_type):
                tmp = fn.fresh("r")
                fn.emit(f"{tmp} = {zero_value(ret_type)}")
                self.assign_value(V(tmp, ret_type), v, s.loc, fn)
                v = V(tmp, ret_type)
            else:
                v = self.coerce(v, ret_type, s.loc)
            fn.emit(f"return ({v.py}, {epilogue})" if epilogue else f"return {v.py}")
            return
        if epilogue:
            fn.emit(f"return ({epilogue})")
            return
        if ret_type is not None and not isinstance(ret_type, type(VOID)):
            raise P4CompileError(s.loc, "return without a value in a function returning a value")
        fn.emit("return")

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
            return self.action_call(e, b, scope, fn, as_statement)
        if isinstance(b, FuncB):
            return self.function_call(e, b, scope, fn, want, as_statement)
        if isinstance(b, ExternFuncB):
            return self.extern_function_call(e, b, scope, fn, want, as_statement)
        if isinstance(b, TypeB) and isinstance(b.ty, (BitsT, BoolT)) and len(e.args) == 1:
            return self.cast(self.expr(e.args[0].value, scope, fn), b.ty, e.loc)
        raise P4CompileError(e.loc, "called expression is not a function, action or method")

    def gen_args(self, pairs, tyenv, scope, fn, loc, what: str, type_params=()) -> list[tuple[A.Param, V | None, Type]]:
        """Type-check arguments against parameters; infers type variables into `tyenv`."""
        out = []
        for p, a in pairs:
            pscope = self.tvar_scope(scope, tyenv)
            for tp in type_params:
                if tp not in tyenv:
                    pscope.bind(tp, TypeB(TypeVarT(tp)))
            pt = self.resolve_type(p.type, pscope)
            if a is None or a.value is None:
                if a is None and p.default is not None:
                    v = self.coerce(self.expr(p.default, scope, fn, pt), pt, loc)
                    out.append((p, v, pt))
                else:
                    if p.direction != "out":
                        raise P4CompileError(loc, f"{what}: don't-care argument for non-out parameter {p.name}")
                    out.append((p, None, pt))
                continue
            want = pt if not isinstance(pt, TypeVarT) else None
            if isinstance(pt, TypeVarT) and pt.name in tyenv:
                want = tyenv[pt.name]
                pt = want
            if p.direction in ("out", "inout"):
                v = self.lvalue(a.value, scope, fn)
            else:
                v = self.expr(a.value, scope, fn, want)
            if isinstance(pt, TypeVarT):
                if not isinstance(v.ty, InfIntT):
                    tyenv[pt.name] = v.ty
                    pt = v.ty
            elif not is_compound(pt) and not isinstance(pt, (TupleT, VarbitT)):
                if isinstance(pt, BitsT) and isinstance(v.ty, BitsT) and pt != v.ty and p.direction == "":
                    # directionless (constructor/extern) params accept implicit casts in p4c
                    v = self.cast(v, pt, a.loc)
                v = self.coerce(v, pt, a.loc)
            elif isinstance(pt, StructT) and isinstance(v.ty, StructT) and pt is not v.ty:
                raise P4CompileError(a.loc, f"{what}: argument type {v.ty} does not match {pt}")
            out.append((p, v, pt))
        return out

    def tvar_scope(self, scope: Scope, tyenv: dict) -> Scope:
        s = Scope(scope)
        for name, t in tyenv.items():
            s.bind(name, TypeB(t))
        return s

    def emit_call_with_outs(self, call_py: str, outs: list[tuple[V, Type]], has_ret: bool, fn, loc) -> str | None:
        """Emit a call whose scalar out/inout results come back as a tuple; returns the
        Python name holding the return value (if any)."""
        if not outs:
            if has_ret:
                return call_py
            fn.emit(call_py)
            return None
        tmp = fn.fresh("res")
        fn.emit(f"{tmp} = {call_py}")
        off = 1 if has_ret else 0
        for i, (lv, t) in enumerate(outs):
            if isinstance(lv.ty, BitsT) and isinstance(t, BitsT) and lv.ty != t:
                raise P4CompileError(loc, f"out argument type {lv.ty} does not match {t}")
            self.store(lv, f"{tmp}[{i + off}]", fn)
        return f"{tmp}[0]" if has_ret else None

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
            if p.direction in ("out", "inout") and not is_compound(pt):
                outs.append((v, pt))
        prefix = []
        if b.owner is not None:
            if b.owner is not getattr(fn, "owner", None):
                raise P4CompileError(e.loc, f"action {decl.name} is not callable here")
            prefix = [b.owner.sig]
        self.ensure_action(b)
        self.emit_call_with_outs(f"{b.py}({', '.join(prefix + args_py)})", outs, False, fn, e.loc)
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
        outs = [(v, pt) for p, v, pt in args if p.direction in ("out", "inout") and not is_compound(pt)]
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
            if t.kind == "table":
                if name != "apply" or e.args:
                    raise P4CompileError(e.loc, f"table {t.name}: only apply() can be called")
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
        if name == "isValid":
            if t.kind == "header_union":
                return V(f"{base.py}.is_valid()", BOOL)
            if t.kind != "header":
                raise P4CompileError(e.loc, f"{t.name} is not a header")
            return V(f"{base.py}.valid", BOOL)
        if name in ("minSizeInBits", "minSizeInBytes"):
            bits = t.bit_width()
            val = bits if name == "minSizeInBits" else (bits + 7) // 8
            return V(lit(val), INFINT, val)
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
            # BMv2's packet length register follows validity flips (V1MODEL-NOTES §1)
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


__all__ = ["StmtGen", "is_compound", "zero_value", "DONTCARE", "EnumT", "InstB"]


def _action_id_ref(self, label: A.Expr, ty, scope: Scope) -> str:
    if not isinstance(label, A.Path):
        raise P4CompileError(label.loc, "switch label must be an action name")
    b = scope.lookup(label.name)
    if not isinstance(b, ActionB):
        raise P4CompileError(label.loc, f"{label.name}: not an action")
    return f"AID[{b.full_name!r}]"


StmtGen.action_id_ref = _action_id_ref
