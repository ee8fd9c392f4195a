"""Actions and functions as generated Python functions (mixin of `ProgramGen`; their call
sites are in `calls.py`).

An action is described to the control plane when declared (`register_action`) and
generated on its first call or table use (`ensure_action`); a function once per binding
of its type parameters (`ensure_function`). Both copy directional arguments in and
out/inout results back as p4c does, and an action copies them back also when an exit
leaves its body (`_body_with_exit_copy_out`, which sub-controls use too).
"""

from __future__ import annotations

from p4emu.compiler.analysis import may_exit
from p4emu.compiler.scope import ActionB, Fn, FuncB, Scope, VarB, py_ident
from p4emu.compiler.values import key_width
from p4emu.ir import statements as S
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import VOID, EnumT, StackT, StructT, Type


class ActionGen:
    """`self` is the `ProgramGen`."""

    def register_action(self, b: ActionB) -> None:
        other = self.out.actions_by_name.setdefault(b.full_name, b)
        if other.decl is not b.decl:
            # P4Runtime names actions by their control-plane name; two actions sharing one
            # would be one action to the controller (p4c: DuplicateActionControlPlaneNameCheck)
            raise P4CompileError(b.decl.loc, f"{b.full_name}: conflicting control plane name "
                                             f"(also the action at {other.decl.loc})")
        params = []
        scope = getattr(b, "scope", self.global_scope)
        for p in b.decl.params:
            if p.direction == "":
                t = self.checker.resolve_type(p.type, scope)
                anno = A.find_annotation(p.annotations, "name")
                pname = anno.string() if anno is not None and anno.string() else p.name
                type_name = None
                if isinstance(p.type, A.TName) and p.type.name in self.env.new_types:
                    type_name = p.type.name
                if isinstance(t, EnumT) and t.underlying is not None:
                    self.out.p4rt_enums[t.name] = t
                params.append((pname, key_width(t, p.loc), p.annotations, type_name))
        self.out.objects["actions"].setdefault(b.full_name, dict(name=b.full_name, params=params, annotations=b.decl.annotations))

    def ensure_action(self, b: ActionB) -> None:
        if b.py:
            return
        b.py = f"A_{self.next_id()}_{py_ident(b.decl.name)}"
        ctx = b.owner
        scope = Scope(getattr(b, "scope", self.global_scope))
        fn = Fn(self.next_id)
        fn.owner = ctx
        fn.ret_type = None
        fn.kind = "action"
        params = []
        outs = []
        b.data_params = []
        for p in b.decl.params:
            t = self.checker.resolve_type(p.type, scope)
            py = f"a_{py_ident(p.name)}"
            params.append(py)
            scope.declare(p.name, VarB(t, py, writable=p.direction not in ("in", ""),
                                       direction=p.direction), p.loc)
            if p.direction == "":
                b.data_params.append((p, t, py))
            else:
                self._copy_in(p, t, py, fn, outs)
        fn.epilogue = "".join(o + ", " for o in outs)
        saved = self.walk.in_parser
        self.walk.in_parser = False
        self._body_with_exit_copy_out(b.decl.body, scope, fn, outs)
        self.walk.in_parser = saved
        if fn.epilogue:
            fn.emit(f"return ({fn.epilogue})")
        sig = ([ctx.sig] if ctx is not None else []) + params
        self.out.code.append(f"def {b.py}({', '.join(sig)}):")
        self.out.code += fn.body()

    def _copy_in(self, p: A.Param, t: Type, py: str, fn, outs: list[str]) -> None:
        """p4c copies directional arguments of actions and functions into temporaries and
        copies out/inout ones back at the end (and, for actions, before an exit)."""
        if isinstance(t, (StructT, StackT)):
            fn.emit(f"{py} = {py}.copy()")
            if p.direction == "out":
                self.emit_out_init(py, t, fn)
        if p.direction in ("out", "inout"):
            outs.append(py)

    def _body_with_exit_copy_out(self, body: A.Block, scope, fn, outs: list[str]) -> S.Block:
        if not outs or not may_exit(body):
            return self.block(body, scope, fn)
        fn.emit("try:")
        fn.indent += 1
        n = len(fn.lines)
        checked = self.block(body, scope, fn)
        if len(fn.lines) == n:
            fn.emit("pass")
        fn.indent -= 1
        fn.emit("except ExitSignal as x:")
        fn.emit(f"    x.outs = ({''.join(o + ', ' for o in outs)})")
        fn.emit("    raise")
        return checked

    def ensure_function(self, b: FuncB, tyenv: dict | None = None) -> str:
        """Generate `b` (one specialisation per type-argument binding); returns its name."""
        d = b.decl
        key = tuple(str(tyenv[tp]) for tp in d.type_params) if d.type_params else ()
        variants = b.__dict__.setdefault("variants", {})
        if key in variants:
            return variants[key]
        fname = f"FN_{self.next_id()}_{py_ident(d.name)}"
        variants[key] = fname
        b.py = b.py or fname
        scope = self.checker.tvar_scope(self.global_scope, {tp: tyenv[tp] for tp in d.type_params})
        fn = Fn(self.next_id)
        fn.owner = None
        fn.kind = "function"
        fn.ret_type = self.checker.resolve_type(d.ret, scope)
        params, outs = [], []
        for p in d.params:
            t = self.checker.resolve_type(p.type, scope)
            py = f"a_{py_ident(p.name)}"
            params.append(py)
            scope.declare(p.name, VarB(t, py, writable=p.direction not in ("in", ""),
                                       direction=p.direction), p.loc)
            self._copy_in(p, t, py, fn, outs)
        # results: (return value?, scalar out/inout values...) -- see StmtGen._return_statement
        fn.epilogue = "".join(o + ", " for o in outs)
        saved = self.walk.in_parser
        self.walk.in_parser = False
        self.block(d.body, scope, fn)
        self.walk.in_parser = saved
        if isinstance(fn.ret_type, type(VOID)) and outs:
            fn.emit(f"return ({fn.epilogue})")
        self.out.code.append(f"def {fname}({', '.join(params)}):")
        self.out.code += fn.body()
        return fname

    def emit_out_init(self, py: str, t: Type, fn) -> None:
        """`out` parameters start uninitialized: headers in them start invalid."""
        if isinstance(t, StructT):
            if t.kind == "header":
                fn.emit(f"{py}.valid = False")
            else:
                for fname, ft in t.fields:
                    self.emit_out_init(f"{py}.f_{fname}", ft, fn)
        elif isinstance(t, StackT):
            fn.emit(f"for h in {py}.items: h.valid = False")
            fn.emit(f"{py}.nxt = 0")
