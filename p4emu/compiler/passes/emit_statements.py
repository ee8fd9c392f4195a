"""The statement emitter (mixin of `ProgramGen`): a typed statement (`p4emu.ir.statements`,
from `check_statements.py`) -> lines of the generated Python function `fn`, dispatching on
the node class through `STMT_EMITTERS`. Local variables get their Python names here.

Assignments of compound values copy into the target (`assign`, field by field for list and
struct expressions); a slice is written back into its base (`store`). Loops: `fn.loops`
holds, per enclosing loop, the update statements a `continue` runs first.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.passes.folding import fold
from p4emu.compiler.values import V, is_compound, zero_value
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.lang.types import BitsT, StackT, StructT


class StatementEmit:
    """`self` is the `ProgramGen`."""

    def emit_stmt(self, s: S.Stmt, fn) -> None:
        STMT_EMITTERS[type(s)](self, s, fn)

    def _emit_nested(self, s: S.Stmt, fn) -> None:
        """`s` one level deeper (`pass` if it emits nothing)."""
        fn.indent += 1
        n = len(fn.lines)
        self.emit_stmt(s, fn)
        if len(fn.lines) == n:
            fn.emit("pass")
        fn.indent -= 1

    def _emit_block(self, s: S.Block, fn) -> None:
        for st in s.stmts:
            self.emit_stmt(st, fn)

    def _emit_empty(self, s, fn) -> None:
        pass

    def _emit_var_decl(self, s: S.VarDecl, fn) -> None:
        py = s.binding.py = fn.fresh("v_" + s.name)
        if s.init is None:
            fn.emit(f"{py} = {zero_value(s.type)}")
            return
        v = self.emit_expr(fold(s.init), fn)
        if is_compound(s.type):
            fn.emit(f"{py} = {zero_value(s.type)}")
            self.assign_value(V(py, s.type), v, fn)
        else:
            fn.emit(f"{py} = {v.py}")

    def _emit_const_decl(self, s: S.ConstDecl, fn) -> None:
        v = self.emit_expr(fold(s.value), fn)
        py = s.binding.py = fn.fresh("c_" + s.name)
        fn.emit(f"{py} = {v.py}")

    def _emit_assign(self, s: S.Assign, fn) -> None:
        if s.index_binding is not None:
            index = self.emit_expr(fold(s.index), fn)
            s.index_binding.py = fn.fresh("ix")
            fn.emit(f"{s.index_binding.py} = {index.py}")
        lv = self.emit_lvalue(s.target, fn)
        v = self.emit_expr(fold(s.value), fn)
        if isinstance(lv.ref, tuple) and lv.ref[0] == "slice":
            self.store(lv, v.py, fn)
        else:
            self.assign_value(lv, v, fn)

    def assign_value(self, lv: V, v: V, fn) -> None:
        """Emit `lv = v` of a checked assignment (`check_assignment`)."""
        t = lv.ty
        if isinstance(t, StructT):
            if isinstance(v.ref, tuple) and v.ref[0] in ("list", "struct") and not (
                isinstance(v.ty, StructT) and v.ref[0] == "struct"
            ):
                tmp = fn.fresh("t")
                fn.emit(f"{tmp} = {lv.py}")
                for (fname, ftype), fv in zip(t.fields, v.ref[1], strict=True):
                    self.assign_value(V(f"{tmp}.f_{fname}", ftype), fv, fn)
                if t.kind == "header":
                    fn.emit(f"{tmp}.valid = True")
            elif isinstance(v.ty, StructT):
                fn.emit(f"{lv.py}.assign({v.py})")
            else:  # `{}`: an invalid header
                fn.emit(f"{lv.py}.valid = False")
            return
        if isinstance(t, StackT):
            fn.emit(f"{lv.py}.assign({v.py})")
            return
        fn.emit(f"{lv.py} = {v.py}")

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

    def _emit_evaluate(self, s: S.Evaluate, fn) -> None:
        self.emit_expr(fold(s.value), fn)

    def _emit_call_statement(self, s: S.CallStatement, fn) -> None:
        self.emit_call(s.call, fn, as_statement=True)

    def _emit_if(self, s: S.If, fn) -> None:
        c = self.emit_expr(fold(s.cond), fn)
        fn.emit(f"if {c.py}:")
        self._emit_nested(s.then, fn)
        if s.other is not None:
            fn.emit("else:")
            self._emit_nested(s.other, fn)

    def _emit_switch(self, s: S.Switch, fn) -> None:
        v = self.emit_expr(fold(s.value), fn)
        tmp = fn.fresh("sw")
        fn.emit(f"{tmp} = {v.py}")
        pending: list[str] = []
        first = True
        for case in s.cases:
            for label in case.labels:
                if label is None:
                    pending.append("True")
                elif isinstance(label, I.CallableRef):  # an action of the table applied
                    pending.append(f"{tmp} == AID[{label.binding.full_name!r}]")
                else:
                    pending.append(f"{tmp} == {self.emit_expr(fold(label), fn).py}")
            if case.body is None:
                continue
            cond = " or ".join(pending) if "True" not in pending else "True"
            pending = []
            fn.emit(f"{'if' if first else 'elif'} {cond}:")
            first = False
            self._emit_nested(case.body, fn)

    def _emit_for_in(self, s: S.ForIn, fn) -> None:
        loops = fn.__dict__.setdefault("loops", [])
        py = s.binding.py = fn.fresh("v_" + s.name)
        if s.iterable is None:
            lo = self.emit_expr(fold(s.low), fn)
            hi = self.emit_expr(fold(s.high), fn)
            src = f"range({lo.py}, {hi.py} + 1)"
        else:
            v = self.emit_expr(fold(s.iterable), fn)
            src = f"{v.py}.items" if isinstance(v.ty, StackT) else v.py
        fn.emit(f"for {py} in {src}:")
        loops.append(([], fn.indent + 1))
        self._emit_nested(s.body, fn)
        loops.pop()

    def _emit_for(self, s: S.For, fn) -> None:
        loops = fn.__dict__.setdefault("loops", [])
        for st in s.init:
            self.emit_stmt(st, fn)
        # the update statements, generated once: after the body and before a `continue`
        probe = fn.detached(fn.indent + 1)
        for st in s.update:
            self.emit_stmt(st, probe)
        fn.emit("while True:")
        fn.indent += 1
        if s.cond is not None:
            fn.emit(f"if not {self.emit_expr(fold(s.cond), fn).py}: break")
        loops.append((probe.lines, fn.indent))
        self.emit_stmt(s.body, fn)
        loops.pop()
        fn.lines.extend(probe.lines)
        fn.indent -= 1

    def _emit_break(self, s, fn) -> None:
        fn.emit("break")

    def _emit_continue(self, s, fn) -> None:
        # the update clause runs before the next iteration (re-indented to this depth)
        lines, indent = fn.loops[-1]
        for line in lines:
            fn.lines.append("    " * fn.indent + line[4 * indent:])
        fn.emit("continue")

    def _emit_exit(self, s, fn) -> None:
        fn.emit("raise ExitSignal()")

    def _emit_return(self, s: S.Return, fn) -> None:
        epilogue = getattr(fn, "epilogue", "")
        if s.value is not None:
            v = self.emit_expr(fold(s.value), fn)
            ret_type = getattr(fn, "ret_type", None)
            if is_compound(ret_type):
                tmp = fn.fresh("r")
                fn.emit(f"{tmp} = {zero_value(ret_type)}")
                self.assign_value(V(tmp, ret_type), v, fn)
                v = V(tmp, ret_type)
            fn.emit(f"return ({v.py}, {epilogue})" if epilogue else f"return {v.py}")
        elif epilogue:
            fn.emit(f"return ({epilogue})")
        else:
            fn.emit("return")


# the emitter of each statement node class, called as emit(self, s, fn)
STMT_EMITTERS: dict[type, Callable[..., None]] = {
    S.Block: StatementEmit._emit_block,
    S.Empty: StatementEmit._emit_empty,
    S.VarDecl: StatementEmit._emit_var_decl,
    S.ConstDecl: StatementEmit._emit_const_decl,
    S.Assign: StatementEmit._emit_assign,
    S.Evaluate: StatementEmit._emit_evaluate,
    S.CallStatement: StatementEmit._emit_call_statement,
    S.If: StatementEmit._emit_if,
    S.Switch: StatementEmit._emit_switch,
    S.ForIn: StatementEmit._emit_for_in,
    S.For: StatementEmit._emit_for,
    S.Break: StatementEmit._emit_break,
    S.Continue: StatementEmit._emit_continue,
    S.Exit: StatementEmit._emit_exit,
    S.Return: StatementEmit._emit_return,
}
