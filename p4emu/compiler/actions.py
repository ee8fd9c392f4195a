"""Actions and functions as generated Python functions (`ActionEmitter`, a pass of
`ProgramGen`; their call sites are the `CallEmitter`'s, `calls.py`).

An action is described to the control plane when declared (`register_action`) and
generated on its first call or table use (`ensure_action`); a function once per binding
of its type parameters (`ensure_function`), each from the body the checker checked. Both
copy directional arguments in and out/inout results back as p4c does, and an action
copies them back also when an exit leaves its body (`body_with_exit_copy_out`, which
sub-controls use too).
"""

from __future__ import annotations

from p4emu.compiler.analysis import may_exit
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.check_blocks import function_key
from p4emu.compiler.scope import ActionB, Fn, FuncB, py_ident
from p4emu.compiler.values import key_width
from p4emu.ir import blocks as B
from p4emu.ir import statements as S
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import VOID, EnumT, StackT, StructT, Type


class ActionEmitter(CompilePass):
    """Actions (their P4Info records and their code) and functions (one per binding of
    their type parameters)."""

    USES = ("stmts",)

    def register_action(self, b: ActionB) -> None:
        other = self.out.actions_by_name.setdefault(b.full_name, b)
        if other.decl is not b.decl:
            # P4Runtime names actions by their control-plane name; two actions sharing one
            # would be one action to the controller (p4c: DuplicateActionControlPlaneNameCheck)
            raise P4CompileError(b.decl.loc, f"{b.full_name}: conflicting control plane name "
                                             f"(also the action at {other.decl.loc})")
        params = []
        written = {p.name: p for p in b.decl.params}
        for p in b.params:
            if p.direction == "":
                ast_param = written[p.name]
                anno = A.find_annotation(ast_param.annotations, "name")
                pname = anno.string() if anno is not None and anno.string() else p.name
                type_name = None
                if isinstance(ast_param.type, A.TName) and ast_param.type.name in self.env.new_types:
                    type_name = ast_param.type.name
                if isinstance(p.type, EnumT) and p.type.underlying is not None:
                    self.out.p4rt_enums[p.type.name] = p.type
                params.append((pname, key_width(p.type, p.loc), ast_param.annotations, type_name))
        self.out.objects["actions"].setdefault(b.full_name, dict(name=b.full_name, params=params, annotations=b.decl.annotations))

    def ensure_action(self, b: ActionB) -> None:
        """Generate action `b` (checked on its first use) on its first call or table use."""
        if b.py:
            return
        b.py = f"A_{self.next_id()}_{py_ident(b.decl.name)}"
        ctx = b.owner.ctx if b.owner is not None else None
        fn = Fn(self.next_id)
        fn.owner = ctx
        fn.ret_type = None
        fn.kind = "action"
        params, outs = self._parameters(b.params, fn, directionless=False)
        fn.epilogue = "".join(o + ", " for o in outs)
        self.body_with_exit_copy_out(b.body, fn, outs, bool(outs) and may_exit(b.decl.body))
        if fn.epilogue:
            fn.emit(f"return ({fn.epilogue})")
        sig = ([ctx.sig] if ctx is not None else []) + params
        self.out.code.append(f"def {b.py}({', '.join(sig)}):")
        self.out.code += fn.body()

    def _parameters(self, params: tuple[B.Parameter, ...], fn, directionless: bool) -> tuple[list[str], list[str]]:
        """Name the parameters of an action or function; p4c copies directional arguments
        into temporaries and copies out/inout ones back at the end (and, for actions, before
        an exit). Returns the Python parameters and the out/inout ones."""
        names, outs = [], []
        for p in params:
            py = p.binding.py = f"a_{py_ident(p.name)}"
            names.append(py)
            if p.direction == "" and not directionless:
                continue  # action data
            if isinstance(p.type, (StructT, StackT)):
                fn.emit(f"{py} = {py}.copy()")
                if p.direction == "out":
                    emit_out_init(py, p.type, fn)
            if p.direction in ("out", "inout"):
                outs.append(py)
        return names, outs

    def body_with_exit_copy_out(self, body: S.Block, fn, outs: list[str], exits: bool) -> None:
        """Emit `body`; when it `exits` (may exit), its out/inout results `outs` still go
        back to the caller, attached to the ExitSignal."""
        if not exits:
            self.stmts.emit_body(body, fn)
            return
        fn.emit("try:")
        fn.indent += 1
        n = len(fn.lines)
        self.stmts.emit_body(body, fn)
        if len(fn.lines) == n:
            fn.emit("pass")
        fn.indent -= 1
        fn.emit("except ExitSignal as x:")
        fn.emit(f"    x.outs = ({''.join(o + ', ' for o in outs)})")
        fn.emit("    raise")

    def ensure_function(self, b: FuncB, tyenv: dict | None = None) -> str:
        """Generate `b` (one specialisation per type-argument binding); returns its name."""
        key = function_key(b, tyenv)
        if key in b.emitted:
            return b.emitted[key]
        fname = f"FN_{self.next_id()}_{py_ident(b.decl.name)}"
        b.emitted[key] = fname
        b.py = b.py or fname
        checked = b.variants[key]
        fn = Fn(self.next_id)
        fn.owner = None
        fn.kind = "function"
        fn.ret_type = checked.ret_type
        params, outs = self._parameters(checked.params, fn, directionless=True)
        # results: (return value?, scalar out/inout values...) -- see StatementEmitter._emit_return
        fn.epilogue = "".join(o + ", " for o in outs)
        self.stmts.emit_body(checked.body, fn)
        if isinstance(fn.ret_type, type(VOID)) and outs:
            fn.emit(f"return ({fn.epilogue})")
        self.out.code.append(f"def {fname}({', '.join(params)}):")
        self.out.code += fn.body()
        return fname


def emit_out_init(py: str, t: Type, fn) -> None:
    """`out` parameters start uninitialized: headers in them start invalid."""
    if isinstance(t, StructT):
        if t.kind == "header":
            fn.emit(f"{py}.valid = False")
        else:
            for fname, ft in t.fields:
                emit_out_init(f"{py}.f_{fname}", ft, fn)
    elif isinstance(t, StackT):
        fn.emit(f"for h in {py}.items: h.valid = False")
        fn.emit(f"{py}.nxt = 0")
