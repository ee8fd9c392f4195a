"""Calls in the type checker (`CallChecker`, a pass of the `ProgramChecker`): the callee is
resolved, the call checked against it and the result typed. Actions, functions and
parser/control applies get their arguments bound and checked (`check_arguments.py`); `t(x)`
of a bit or bool type is a cast and `h.isValid()`, `h.minSizeInBits()`/`minSizeInBytes()`
are queries of the header. Extern functions are checked for their existence and overload
here and their arguments by `check_externs.py`; extern object and packet methods by
`check_extern_methods.py`.

What a call uses (an action, a function, the instance `Ctrl.apply()` makes) is checked
after the construct it is in (`check_blocks.py`). Checks that depend on the generated code
(an action of another control, a table applied from an action, a table or sub-block
applied twice) are made by `calls.py`.
"""

from __future__ import annotations

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.check_arguments import bind_args
from p4emu.compiler.passes.check_externs import EXTERN_CHECKS
from p4emu.compiler.passes.conversions import cast_expr
from p4emu.compiler.scope import ActionB, ExternFuncB, FuncB, Scope, TypeB, tvar_scope
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    BOOL,
    INFINT,
    VOID,
    BitsT,
    BoolT,
    ObjectT,
    StackT,
    StructT,
)


class CallChecker(CompilePass):
    """Calls: the callee resolved, the call checked against it, the result typed."""

    USES = ("blocks", "types", "exprs", "arguments", "extern_functions", "extern_methods")

    def check_call(self, e: A.Call, scope: Scope, want=None, statement: bool = False) -> I.Expr:
        """Call `e` as an expression (or, with `statement`, as a statement of its own)."""
        f = e.func
        if isinstance(f, A.Member):
            return self._check_method_call(e, self.exprs.check(f.expr, scope), f.name, scope, statement)
        callee = self.exprs.check(f, scope)
        b = getattr(callee, "binding", None)
        if isinstance(b, TypeB) and isinstance(b.ty, (BitsT, BoolT)) and len(e.args) == 1:
            return cast_expr(self.exprs.check(e.args[0].value, scope), b.ty, e.loc)
        if isinstance(b, ActionB):
            return self._check_action_call(e, callee, b, scope, statement)
        if isinstance(b, FuncB):
            return self._check_function_call(e, callee, b, scope)
        if isinstance(b, ExternFuncB):
            pairs = self.extern_overload(e, b)
            args = self.extern_functions.check_extern_call(e, b.name, pairs, scope)
            if b.name == "static_assert":  # it failed if it did not hold (`check_externs`)
                return I.Call(BOOL, e.loc, callee, args, const=True)
            return I.Call(VOID, e.loc, callee, args)
        raise P4CompileError(e.loc, "called expression is not a function, action or method")

    def _check_action_call(self, e: A.Call, callee, b: ActionB, scope, statement) -> I.Expr:
        decl = b.decl
        if self.walk.in_parser:  # p4c (TypeInference): actions belong to controls
            raise P4CompileError(e.loc, f"{decl.name}: Action calls are not allowed within parsers")
        if not statement:
            raise P4CompileError(e.loc, "actions cannot be called in expressions")
        pairs = bind_args(decl.params, e.args, e.loc, decl.name)
        call = I.Call(VOID, e.loc, callee, self.arguments.check_arguments(pairs, {}, scope, e.loc, decl.name))
        self.blocks.use(b)
        return call

    def _check_function_call(self, e: A.Call, callee, b: FuncB, scope) -> I.Expr:
        decl = b.decl
        tyenv: dict = {}
        if e.type_args:
            if len(e.type_args) != len(decl.type_params):
                raise P4CompileError(e.loc, f"{decl.name}: expected {len(decl.type_params)} type arguments")
            tyenv = {tp: self.types.resolve(ta, scope) for tp, ta in zip(decl.type_params, e.type_args, strict=True)}
        pairs = bind_args(decl.params, e.args, e.loc, decl.name)
        args = self.arguments.check_arguments(pairs, tyenv, scope, e.loc, decl.name, decl.type_params)
        missing = [tp for tp in decl.type_params if tp not in tyenv]
        if missing:
            raise P4CompileError(e.loc, f"{decl.name}: cannot infer type argument {missing[0]}")
        result = self.types.resolve(decl.ret, tvar_scope(scope, tyenv))
        self.blocks.use(b, tyenv)
        return I.Call(result, e.loc, callee, args, tuple(tyenv.items()))

    def _check_method_call(self, e: A.Call, base: I.Expr, name: str, scope, statement) -> I.Expr:
        t = base.type
        method = I.MethodRef(VOID, e.func.loc, base, name)
        if isinstance(t, StructT):
            if e.args:
                raise P4CompileError(e.loc, f"{name} takes no arguments")
            if name in ("isValid", "minSizeInBits", "minSizeInBytes"):
                return self.header_query(e, base, name)
            if name not in ("setValid", "setInvalid"):
                raise P4CompileError(e.loc, f"{t.name} has no method {name}")
            if t.kind != "header":
                raise P4CompileError(e.loc, f"{name}: {t.name} is not a header")
            if not statement:
                raise P4CompileError(e.loc, f"{name}() does not return a value")
            return I.Call(VOID, e.loc, method)
        if isinstance(t, StackT):
            if name not in ("push_front", "pop_front"):
                raise P4CompileError(e.loc, f"header stack has no method {name}")
            if len(e.args) != 1:
                raise P4CompileError(e.loc, f"{name} expects one argument")
            count = I.Constant(INFINT, e.args[0].loc, const=self.exprs.const_int(e.args[0].value, scope))
            return I.Call(VOID, e.loc, method, (I.Argument("", INFINT, count, e.args[0].loc),))
        if not isinstance(t, ObjectT):
            raise P4CompileError(e.loc, f"{t} has no method {name}")
        if t.kind == "table":
            if name != "apply" or e.args:
                raise P4CompileError(e.loc, f"table {t.name}: only apply() can be called")
            result = ObjectT("apply_result", "apply_result", getattr(base, "binding", None))
            return I.Call(result, e.loc, method, site=self.env.apply_sites.get(id(e)))
        if t.kind in ("control", "parser"):
            if name != "apply":
                raise P4CompileError(e.loc, f"{t.name} has no method {name}")
            decl = t.decl
            pairs = bind_args(decl.params, e.args, e.loc, decl.name)
            args = self.arguments.check_arguments(pairs, {}, scope, e.loc, decl.name)
            if isinstance(base, I.TypeName):  # `Ctrl.apply()`: applies an instance made for it
                inst = self.blocks.direct_instance(t, e.loc)
                method = I.MethodRef(VOID, e.func.loc, I.InstanceRef(t, base.loc, inst.full_name, inst), name)
            return I.Call(VOID, e.loc, method, args)
        if t.kind == "extern":
            return I.Call(VOID, e.loc, method, self.extern_methods.check_extern_method(e, t, name, scope))
        if t.kind == "packet_in":
            return self.extern_methods.check_packet_in_call(e, method, name, scope)
        if t.kind == "packet_out":
            return self.extern_methods.check_packet_out_call(e, method, name, scope)
        raise P4CompileError(e.loc, f"{t} has no method {name}")

    def header_query(self, e: A.Call, base: I.Expr, name: str) -> I.Expr:
        t: StructT = base.type
        if e.args:
            raise P4CompileError(e.loc, f"{name} takes no arguments")
        if name == "isValid":
            if t.kind not in ("header", "header_union"):
                raise P4CompileError(e.loc, f"{t.name} is not a header")
            return I.HeaderQuery(BOOL, e.loc, base, name)
        bits = t.bit_width()
        return I.HeaderQuery(INFINT, e.loc, base, name,
                             const=bits if name == "minSizeInBits" else (bits + 7) // 8)

    def extern_overload(self, e: A.Call, b) -> list[tuple[A.Param, A.Arg | None]]:
        """The arguments of a call of extern function `b` bound to the parameters of the
        overload it calls; an error if none fits or p4emu does not implement it."""
        arity = [d for d in b.overloads if _arity_ok(d, e.args)]
        if not arity:
            raise P4CompileError(e.loc, f"{b.name}: no overload takes {len(e.args)} arguments")
        pairs = bind_args(arity[0].params, e.args, e.loc, b.name)
        if b.name not in EXTERN_CHECKS:
            raise unsupported(e.loc, f"extern function {b.name}")
        return pairs


def _arity_ok(d, args) -> bool:
    required = sum(1 for p in d.params if p.default is None)
    return required <= len(args) <= len(d.params)
