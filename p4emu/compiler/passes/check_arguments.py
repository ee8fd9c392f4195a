"""Arguments and lvalues in the type checker (`ArgumentChecker`, a pass of the
`ProgramChecker`): arguments bound to parameters (`bind_args`: positional or named,
defaults), checked against the parameters' types with their directions (`check_arguments`:
type variables inferred as p4c's TypeInference does, `out`/`inout` arguments checked as
lvalues) and the writability of assignment targets (`check_lvalue`)."""

from __future__ import annotations

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import cast_expr, convert
from p4emu.compiler.scope import Scope, TypeB, VarB, tvar_scope
from p4emu.compiler.values import is_compound
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import (
    BitsT,
    InfIntT,
    StackT,
    StructT,
    TupleT,
    Type,
    TypeVarT,
    VarbitT,
)


class ArgumentChecker(CompilePass):
    """Arguments checked against their parameters; assignment targets."""

    USES = ("types", "exprs")

    def check_arguments(self, pairs, tyenv: dict, scope: Scope, loc, what: str,
                        type_params=()) -> tuple[I.Argument, ...]:
        """The arguments of `pairs` (`bind_args`) checked left to right against their
        parameters; type variables are inferred into `tyenv`."""
        return tuple(self._check_argument(p, a, tyenv, scope, loc, what, type_params) for p, a in pairs)

    def _check_argument(self, p: A.Param, a: A.Arg | None, tyenv, scope, loc, what,
                        type_params) -> I.Argument:
        pt = self.param_type(p, tyenv, type_params, scope)
        if a is None or a.value is None:
            if a is None and p.default is not None:
                v = convert(self.exprs.check(p.default, scope, pt), pt, loc)
                return I.Argument(p.direction, pt, v, loc)
            if p.direction != "out":
                raise P4CompileError(loc, f"{what}: don't-care argument for non-out parameter {p.name}")
            return I.Argument(p.direction, pt, None, loc)
        want = pt if not isinstance(pt, TypeVarT) else None
        if isinstance(pt, TypeVarT) and pt.name in tyenv:
            want = tyenv[pt.name]
            pt = want
        if p.direction in ("out", "inout"):
            v = self.check_lvalue(a.value, scope)
        else:
            v = self.exprs.check(a.value, scope, want)
        if not isinstance(pt, TypeVarT) and not is_compound(pt) and not isinstance(pt, (TupleT, VarbitT)):
            if isinstance(pt, BitsT) and isinstance(v.type, BitsT) and pt != v.type and p.direction == "":
                # directionless (constructor/extern) params accept implicit casts in p4c
                v = cast_expr(v, pt, a.loc)
            v = convert(v, pt, a.loc)
        else:
            unified = unify_param(pt, v.type, tyenv)
            if unified is None:
                raise P4CompileError(a.loc, f"{what}: argument type {v.type} does not match {pt}")
            pt = unified
        return I.Argument(p.direction, pt, v, a.loc)

    def param_type(self, p: A.Param, tyenv: dict, type_params, scope: Scope) -> Type:
        """The type of parameter `p` with the type variables inferred so far substituted."""
        pscope = tvar_scope(scope, tyenv)
        for tp in type_params:
            if tp not in tyenv:
                pscope.bind(tp, TypeB(TypeVarT(tp)))
        return self.types.resolve(p.type, pscope)

    # -- assignment targets ------------------------------------------------------------
    def check_lvalue(self, e: A.Expr, scope: Scope) -> I.Expr:
        """`e` as the target of an assignment or an out/inout argument: a writable variable,
        a field, element or slice of one, or a call's result."""
        if isinstance(e, A.Slice):
            base = self.check_lvalue(e.expr, scope)
            if not isinstance(base.type, BitsT):
                raise P4CompileError(e.loc, f"cannot slice a value of type {base.type}")
            hi = self.exprs.const_int(e.hi, scope)
            lo = self.exprs.const_int(e.lo, scope)
            if not (0 <= lo <= hi < base.type.width):
                raise P4CompileError(e.loc, f"slice [{hi}:{lo}] out of range of {base.type}")
            return self.exprs.check(e, scope)
        root = e
        while isinstance(root, (A.Member, A.Index, A.Slice)):
            root = root.expr
        v = self.exprs.check(e, scope)
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


def bind_args(params: list[A.Param], args: list[A.Arg], loc, what: str) -> list[tuple[A.Param, A.Arg | None]]:
    """The arguments of a call bound to the parameters `params` (positional or named; a
    missing one with a default is None), for the checker of the call (`check_arguments`,
    or an extern's own); `what` names the callee in errors."""
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
