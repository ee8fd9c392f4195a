"""Statements: declarations, assignments (incl. slices and compound values), if/switch,
for loops, exit/return (mixin of `ProgramGen`; calls are in `calls.py`)."""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.analysis import expr_text, has_call
from p4emu.compiler.scope import (
    ActionB,
    ConstB,
    Scope,
    VarB,
)
from p4emu.compiler.values import AggConst, V, is_compound, zero_value
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    VOID,
    BitsT,
    BoolT,
    ObjectT,
    StackT,
    StructT,
    TupleT,
    VarbitT,
)


class StmtGen:
    # -- statements --------------------------------------------------------------------
    def block(self, b: A.Block, scope: Scope, fn) -> None:
        inner = Scope(scope)
        for s in b.stmts:
            self.stmt(s, inner, fn)

    def stmt(self, s: A.Stmt, scope: Scope, fn) -> None:
        gen = STMT_GENERATORS.get(type(s))
        if gen is None:
            raise unsupported(s.loc, f"statement {type(s).__name__}")
        gen(self, s, scope, fn)

    def _empty_statement(self, s, scope, fn):
        pass

    def _var_decl_statement(self, s: A.VarDecl, scope: Scope, fn):
        t = self.resolve_type(s.type, scope)
        if s.is_const:
            v = self.expr(s.init, scope, fn, t)
            v = self.coerce(v, t, s.init.loc)
            if v.const is not None:
                scope.declare(s.name, ConstB(t, v.const), s.loc)
                return
            py = fn.fresh("c_" + s.name)
            fn.emit(f"{py} = {v.py}")
            scope.declare(s.name, VarB(t, py, writable=False), s.loc)
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
        scope.declare(s.name, VarB(t, py), s.loc)

    def _instance_decl_statement(self, s, scope, fn):
        raise P4CompileError(s.loc, "instantiations are not allowed inside blocks")

    def _assign_statement(self, s: A.Assign, scope: Scope, fn):
        if isinstance(s.lhs, A.Slice):
            self._assign_slice(s, scope, fn)
            return
        if isinstance(s.lhs, A.DontCare):
            self.expr(s.rhs, scope, fn)
            return
        scope, frozen = self._freeze_lhs_index(s, scope, fn)
        try:
            lv = self.lvalue(s.lhs, scope, fn)
            v = self.expr(s.rhs, scope, fn, lv.ty)
            self.assign_value(lv, v, s.rhs.loc, fn)
        finally:
            if frozen is not None:
                frozen[0].index = frozen[1]

    def _freeze_lhs_index(self, s: A.Assign, scope: Scope, fn) -> tuple[Scope, tuple | None]:
        """p4c evaluates the left side, its run-time stack index included, once and before
        the right side (SideEffectOrdering): `h[f(i)].x |= v` calls f once, and in
        `h[i].x = g(i)` g's change of i does not move the target (p4c testdata
        opassign2-bmv2.p4, gauntlet_index_7-bmv2.p4). The index goes to a temporary that
        the statement's AST refers to until it is generated (restored by the caller)."""
        e = s.lhs
        while isinstance(e, (A.Member, A.Slice)) or (isinstance(e, A.Index)
                                                      and isinstance(e.index, A.IntLit)):
            e = e.expr
        if not isinstance(e, A.Index) or not (has_call(s.rhs) or has_call(e.index)):
            return scope, None
        index = self.expr(e.index, scope, fn)
        if index.const is not None:
            return scope, None
        tmp = fn.fresh("ix")
        fn.emit(f"{tmp} = {index.py}")
        inner = Scope(scope)
        name = f"{tmp}$"  # no P4 name can clash with it
        inner.bind(name, VarB(index.ty, tmp, writable=False))
        frozen = (e, e.index)
        e.index = A.Path(e.index.loc, name)
        return inner, frozen

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
            if isinstance(v.ty, TupleT) and isinstance(v.const, AggConst) and not v.const.items:
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

    def _call_statement(self, s: A.CallStmt, scope, fn):
        self.call(s.call, scope, fn, None, as_statement=True)

    def _if_statement(self, s: A.If, scope, fn):
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

    def _switch_statement(self, s: A.Switch, scope, fn):
        if getattr(fn, "kind", "") in ("action", "parser"):
            raise P4CompileError(s.loc, f"switch statements are not allowed in {fn.kind}s")
        seen_labels: set[str] = set()
        for case in s.cases:
            for label in case.labels:
                text = "default" if isinstance(label, A.DefaultKey) else expr_text(label)
                if text in seen_labels:
                    raise P4CompileError(label.loc, f"duplicate switch label {text}")
                seen_labels.add(text)
        v = self.expr(s.expr, scope, fn)
        tmp = fn.fresh("sw")
        fn.emit(f"{tmp} = {v.py}")
        is_action_run = isinstance(v.ty, ObjectT) and v.ty.kind == "action_run"
        pending: list[str] = []
        first = True
        for case in s.cases:
            for label in case.labels:
                if isinstance(label, A.DefaultKey):
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

    def _for_statement(self, s: A.For, scope: Scope, fn):
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

    def _break_statement(self, s, scope, fn):
        if not fn.__dict__.get("loops"):
            raise P4CompileError(s.loc, "break outside a loop")
        fn.emit("break")

    def _continue_statement(self, s, scope, fn):
        loops = fn.__dict__.get("loops")
        if not loops:
            raise P4CompileError(s.loc, "continue outside a loop")
        # the update clause runs before the next iteration (re-indented to this depth)
        lines, indent = loops[-1]
        for line in lines:
            fn.lines.append("    " * fn.indent + line[4 * indent:])
        fn.emit("continue")

    def _exit_statement(self, s, scope, fn):
        if getattr(fn, "kind", "") in ("function", "parser"):
            raise P4CompileError(s.loc, f"exit statements are not allowed in {fn.kind}s")
        fn.emit("raise ExitSignal()")

    def _return_statement(self, s: A.Return, scope, fn):
        if getattr(fn, "kind", "") == "parser":
            raise P4CompileError(s.loc, "return statements are not allowed in parsers")
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

    def action_id_ref(self, label: A.Expr, ty, scope: Scope) -> str:
        if not isinstance(label, A.Path):
            raise P4CompileError(label.loc, "switch label must be an action name")
        b = scope.lookup(label.name)
        if not isinstance(b, ActionB):
            raise P4CompileError(label.loc, f"{label.name}: not an action")
        table = getattr(ty.decl, "full_name", None)  # the table applied (an InstB)
        listed = next((t["actions"] for t in self.out.objects["tables"] if t["name"] == table), None)
        if listed is not None and b.full_name not in {r["action"] for r in listed}:
            # p4c (TypeInference): a label must be one of the applied table's actions
            raise P4CompileError(label.loc, f"{label.name} is not a legal label (action name): "
                                            f"not an action of table {table}")
        return f"AID[{b.full_name!r}]"


# the generator of each statement node class, called as gen(self, s, scope, fn)
STMT_GENERATORS: dict[type, Callable[..., None]] = {
    A.Block: StmtGen.block,
    A.Empty: StmtGen._empty_statement,
    A.VarDecl: StmtGen._var_decl_statement,
    A.InstanceDecl: StmtGen._instance_decl_statement,
    A.Assign: StmtGen._assign_statement,
    A.CallStmt: StmtGen._call_statement,
    A.If: StmtGen._if_statement,
    A.Switch: StmtGen._switch_statement,
    A.For: StmtGen._for_statement,
    A.Break: StmtGen._break_statement,
    A.Continue: StmtGen._continue_statement,
    A.Exit: StmtGen._exit_statement,
    A.Return: StmtGen._return_statement,
}
