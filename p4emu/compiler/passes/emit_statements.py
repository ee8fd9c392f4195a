"""The statement emitter, a pass of `ProgramGen`: a typed statement (`p4emu.ir.statements`,
from `check_statements.py`) -> lines of the generated Python function `fn`, dispatching on
the node class through `STMT_EMITTERS`. Local variables get their Python names here; the
statements of a body (`emit_body`) are recorded for the back-end checks
(`passes/check_backend.py`).

Assignments of compound values copy into the target, a slice is written back into its
base (`assignments.py`). Loops: `fn.loops` holds, per enclosing loop, the update
statements a `continue` runs first.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.assignments import assign_value, store
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.values import V, is_compound, zero_value
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.lang.types import StackT


class StatementEmitter(CompilePass):
    """Typed statements -> Python lines of `fn`."""

    USES = ("exprs", "calls")

    def emit_body(self, s: S.Stmt, fn) -> None:
        """A statement a body is made of (an action's, a function's or control's body, a
        parser state's statements): emitted, and recorded for the back-end checks."""
        self.out.typed.append(s)
        self.emit(s, fn)

    def emit(self, s: S.Stmt, fn) -> None:
        STMT_EMITTERS[type(s)](self, s, fn)

    def _emit_nested(self, s: S.Stmt, fn) -> None:
        """`s` one level deeper (`pass` if it emits nothing)."""
        fn.indent += 1
        n = len(fn.lines)
        self.emit(s, fn)
        if len(fn.lines) == n:
            fn.emit("pass")
        fn.indent -= 1

    def _emit_block(self, s: S.Block, fn) -> None:
        for st in s.stmts:
            self.emit(st, fn)

    def _emit_empty(self, s, fn) -> None:
        pass

    def _emit_var_decl(self, s: S.VarDecl, fn) -> None:
        py = s.binding.py = fn.fresh("v_" + s.name)
        if s.init is None:
            fn.emit(f"{py} = {zero_value(s.type)}")
            return
        v = self.exprs.emit(fold(s.init), fn)
        if is_compound(s.type):
            fn.emit(f"{py} = {zero_value(s.type)}")
            assign_value(V(py, s.type), v, fn)
        else:
            fn.emit(f"{py} = {v.py}")

    def _emit_const_decl(self, s: S.ConstDecl, fn) -> None:
        v = self.exprs.emit(fold(s.value), fn)
        py = s.binding.py = fn.fresh("c_" + s.name)
        fn.emit(f"{py} = {v.py}")

    def _emit_assign(self, s: S.Assign, fn) -> None:
        if s.index_binding is not None:
            index = self.exprs.emit(fold(s.index), fn)
            s.index_binding.py = fn.fresh("ix")
            fn.emit(f"{s.index_binding.py} = {index.py}")
        lv = self.exprs.emit_lvalue(s.target, fn)
        v = self.exprs.emit(fold(s.value), fn)
        if isinstance(lv.ref, tuple) and lv.ref[0] == "slice":
            store(lv, v.py, fn)
        else:
            assign_value(lv, v, fn)

    def _emit_evaluate(self, s: S.Evaluate, fn) -> None:
        self.exprs.emit(fold(s.value), fn)

    def _emit_call_statement(self, s: S.CallStatement, fn) -> None:
        self.calls.emit_call(s.call, fn, as_statement=True)

    def _emit_if(self, s: S.If, fn) -> None:
        c = self.exprs.emit(fold(s.cond), fn)
        fn.emit(f"if {c.py}:")
        self._emit_nested(s.then, fn)
        if s.other is not None:
            fn.emit("else:")
            self._emit_nested(s.other, fn)

    def _emit_switch(self, s: S.Switch, fn) -> None:
        v = self.exprs.emit(fold(s.value), fn)
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
                    pending.append(f"{tmp} == {self.exprs.emit(fold(label), fn).py}")
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
            lo = self.exprs.emit(fold(s.low), fn)
            hi = self.exprs.emit(fold(s.high), fn)
            src = f"range({lo.py}, {hi.py} + 1)"
        else:
            v = self.exprs.emit(fold(s.iterable), fn)
            src = f"{v.py}.items" if isinstance(v.ty, StackT) else v.py
        fn.emit(f"for {py} in {src}:")
        loops.append(([], fn.indent + 1))
        self._emit_nested(s.body, fn)
        loops.pop()

    def _emit_for(self, s: S.For, fn) -> None:
        loops = fn.__dict__.setdefault("loops", [])
        for st in s.init:
            self.emit(st, fn)
        # the update statements, generated once: after the body and before a `continue`
        probe = fn.detached(fn.indent + 1)
        for st in s.update:
            self.emit(st, probe)
        fn.emit("while True:")
        fn.indent += 1
        if s.cond is not None:
            fn.emit(f"if not {self.exprs.emit(fold(s.cond), fn).py}: break")
        loops.append((probe.lines, fn.indent))
        self.emit(s.body, fn)
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
            v = self.exprs.emit(fold(s.value), fn)
            ret_type = getattr(fn, "ret_type", None)
            if is_compound(ret_type):
                tmp = fn.fresh("r")
                fn.emit(f"{tmp} = {zero_value(ret_type)}")
                assign_value(V(tmp, ret_type), v, fn)
                v = V(tmp, ret_type)
            fn.emit(f"return ({v.py}, {epilogue})" if epilogue else f"return {v.py}")
        elif epilogue:
            fn.emit(f"return ({epilogue})")
        else:
            fn.emit("return")


# the emitter of each statement node class, called as emit(the StatementEmitter, s, fn)
STMT_EMITTERS: dict[type, Callable[..., None]] = {
    S.Block: StatementEmitter._emit_block,
    S.Empty: StatementEmitter._emit_empty,
    S.VarDecl: StatementEmitter._emit_var_decl,
    S.ConstDecl: StatementEmitter._emit_const_decl,
    S.Assign: StatementEmitter._emit_assign,
    S.Evaluate: StatementEmitter._emit_evaluate,
    S.CallStatement: StatementEmitter._emit_call_statement,
    S.If: StatementEmitter._emit_if,
    S.Switch: StatementEmitter._emit_switch,
    S.ForIn: StatementEmitter._emit_for_in,
    S.For: StatementEmitter._emit_for,
    S.Break: StatementEmitter._emit_break,
    S.Continue: StatementEmitter._emit_continue,
    S.Exit: StatementEmitter._emit_exit,
    S.Return: StatementEmitter._emit_return,
}
