"""Calls in the type checker (mixin of `ProgramGen`): the callee is resolved and the
result typed here; `t(x)` of a bit or bool type is a cast and `h.isValid()`,
`h.minSizeInBits()`/`minSizeInBytes()` are queries of the header. The arguments are still
checked by the code that generates the call (`calls.py`), which binds them to the
parameters and emits their copy-in and copy-out.

`unify_param` is the type inference of one argument, shared with `calls.py`.
"""

from __future__ import annotations

from p4emu.compiler.extern_objects import EXTERN_METHODS
from p4emu.compiler.scope import ExternFuncB, FuncB, Scope, TypeB
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import (
    BOOL,
    INFINT,
    VOID,
    BitsT,
    BoolT,
    InfIntT,
    ObjectT,
    StructT,
    Type,
    TypeVarT,
)


class CallCheck:
    """`self` is the `ProgramGen`."""

    def check_call(self, e: A.Call, scope: Scope, want) -> I.Expr:
        f = e.func
        if isinstance(f, A.Member):
            callee = self.check_expr(f.expr, scope)
            t = callee.type
            if isinstance(t, StructT) and f.name in ("isValid", "minSizeInBits", "minSizeInBytes"):
                return self.header_query(e, callee, f.name)
            result = self._method_result(e, callee, f.name, scope)
        else:
            callee = self.check_expr(f, scope)
            b = getattr(callee, "binding", None)
            if isinstance(b, TypeB) and isinstance(b.ty, (BitsT, BoolT)) and len(e.args) == 1:
                return self.cast_expr(self.check_expr(e.args[0].value, scope), b.ty, e.loc)
            if isinstance(b, FuncB):
                result = self._function_result(e, b, scope)
            elif isinstance(b, ExternFuncB):
                self.extern_overload(e, b)
                result = BOOL if b.name == "static_assert" else VOID
            else:
                result = VOID
        return I.Call(result, e.loc, callee, e, scope, want)

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

    def _method_result(self, e: A.Call, base: I.Expr, name: str, scope) -> Type:
        """The type of what method `name` of `base` returns (void where it cannot be
        called: generating the call reports that)."""
        t = base.type
        if not isinstance(t, ObjectT):
            return VOID
        if t.kind == "extern" and (t.name, name) not in EXTERN_METHODS:
            raise P4CompileError(e.loc, f"{t.name} has no method {name}")
        if t.kind == "table" and name == "apply":
            return ObjectT("apply_result", "apply_result", getattr(base, "binding", None))
        if t.kind == "packet_in" and name == "length":
            return BitsT(32)
        if t.kind == "packet_in" and name == "lookahead" and e.type_args:
            return self.resolve_type(e.type_args[0], scope)
        return VOID

    def _function_result(self, e: A.Call, b: FuncB, scope: Scope) -> Type:
        decl = b.decl
        tyenv: dict = {}
        if e.type_args:
            if len(e.type_args) != len(decl.type_params):
                return VOID
            tyenv = {tp: self.resolve_type(ta, scope) for tp, ta in zip(decl.type_params, e.type_args, strict=True)}
        elif decl.type_params:
            tyenv = self._infer_type_args(e, decl, scope)
            if any(tp not in tyenv for tp in decl.type_params):
                return VOID
        return self.resolve_type(decl.ret, self.tvar_scope(scope, tyenv))

    def _infer_type_args(self, e: A.Call, decl, scope: Scope) -> dict:
        """The type arguments of a call of generic function `decl`, from its arguments."""
        tyenv: dict = {}
        for p, a in self.bind_args(decl.params, e.args, e.loc, decl.name):
            if a is None or a.value is None:
                continue
            pt = self.param_type(p, tyenv, decl.type_params, scope)
            want = tyenv.get(pt.name) if isinstance(pt, TypeVarT) else pt
            v = self.check_expr(a.value, scope, want)
            unify_param(pt if want is None else want, v.type, tyenv)
        return tyenv

    def param_type(self, p: A.Param, tyenv: dict, type_params, scope: Scope) -> Type:
        """The type of parameter `p` with the type variables inferred so far substituted."""
        pscope = self.tvar_scope(scope, tyenv)
        for tp in type_params:
            if tp not in tyenv:
                pscope.bind(tp, TypeB(TypeVarT(tp)))
        return self.resolve_type(p.type, pscope)

    def tvar_scope(self, scope: Scope, tyenv: dict) -> Scope:
        s = Scope(scope)
        for name, t in tyenv.items():
            s.bind(name, TypeB(t))
        return s


def unify_param(pt: Type, actual: Type, tyenv: dict) -> Type | None:
    """The type of a parameter of type `pt` given an argument of type `actual`: a type
    variable takes the argument's type (an untyped int leaves it open), a generic struct
    `S<T>` binds its variables; None if the argument does not fit a generic struct."""
    if isinstance(pt, TypeVarT):
        if not isinstance(actual, InfIntT):
            tyenv[pt.name] = actual
            return actual
        return pt
    if isinstance(pt, StructT) and isinstance(actual, StructT) and pt is not actual:
        return actual if _unify_generic(pt, actual, tyenv) else None
    return pt


def _unify_generic(pattern: StructT, actual: StructT, tyenv: dict) -> bool:
    """Bind the type variables of `pattern` (`S<T, ...>` in a generic signature) to match
    `actual` (a specialization of the same generic struct); False if they cannot match."""
    po = getattr(pattern, "generic_origin", None)
    ao = getattr(actual, "generic_origin", None)
    if po is None or ao is None or po[0] != ao[0]:
        return False
    for p, a in zip(po[1], ao[1], strict=True):
        if isinstance(p, TypeVarT):
            if tyenv.setdefault(p.name, a) != a:
                return False
        elif isinstance(p, StructT) and isinstance(a, StructT):
            if p is not a and not _unify_generic(p, a, tyenv):
                return False
        elif p != a:
            return False
    return True
