"""The expression checker (`ExpressionChecker`, a pass of the `ProgramChecker`): `check`
turns an AST expression into a typed IR expression (`p4emu.ir.expressions`), resolving
names in a `Scope` and raising `P4CompileError` at the offending location, dispatching on
the AST node class through `CHECKERS`. Here: literals, names, member, index and slice
accesses, casts and `?:`; operators are the `OperatorChecker`'s (`check_operators.py`),
list/struct/`{#}`/`...` expressions the `AggregateChecker`'s (`check_aggregates.py`), calls
the `CallChecker`'s (`check_calls.py`; their arguments and assignment targets the
`ArgumentChecker`'s, `check_arguments.py`), conversions are functions (`conversions.py`).

`want` is the type the context expects: it gives untyped int literals and brace
expressions their type (as p4c's TypeInference does); callers still convert the result
where they need that type. Values are computed along (types depend on constants); the
folding pass then turns known values into literals.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import cast_expr, convert, unify
from p4emu.compiler.passes.folding import fold_slice
from p4emu.compiler.scope import (
    ActionB,
    BlockDeclB,
    ConstB,
    ExternFuncB,
    FuncB,
    InstB,
    Scope,
    TypeB,
    VarB,
)
from p4emu.compiler.values import AggConst, wrap
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    BOOL,
    DONTCARE,
    ERROR,
    INFINT,
    STRING,
    VOID,
    BitsT,
    BoolT,
    EnumT,
    ErrorT,
    InfIntT,
    ObjectT,
    StackT,
    StructT,
    TupleT,
    Type,
)

HEADER_METHODS = ("isValid", "setValid", "setInvalid", "minSizeInBits", "minSizeInBytes")


class ExpressionChecker(CompilePass):
    """AST expressions -> typed IR expressions (`check`)."""

    USES = ("types", "operators", "aggregates", "calls")

    def check(self, e: A.Expr, scope: Scope, want: Type | None = None) -> I.Expr:
        check = CHECKERS.get(type(e))
        if check is None:
            raise unsupported(e.loc, f"expression {type(e).__name__}")
        node = check(self, e, scope, want)
        e.ty = node.type
        return node

    def const_int(self, e: A.Expr, scope: Scope) -> int:
        c = self.check(e, scope).const
        if not isinstance(c, int) or isinstance(c, bool):
            raise P4CompileError(e.loc, "expected a compile-time integer constant")
        return c

    def _check_int_literal(self, e: A.IntLit, scope, want) -> I.Expr:
        if e.width is None:
            if isinstance(want, BitsT):
                return I.Constant(want, e.loc, const=wrap(e.value, want))
            return I.Constant(INFINT, e.loc, const=e.value)
        t = BitsT(e.width, e.signed)
        return I.Constant(t, e.loc, const=wrap(e.value, t))

    def _check_bool_literal(self, e: A.BoolLit, scope, want) -> I.Expr:
        return I.Constant(BOOL, e.loc, const=e.value)

    def _check_string_literal(self, e: A.StrLit, scope, want) -> I.Expr:
        return I.Constant(STRING, e.loc, const=e.value)

    def _check_dont_care(self, e, scope, want) -> I.Expr:
        return I.DontCareValue(DONTCARE, e.loc)

    def _check_path(self, e: A.Path, scope: Scope, want) -> I.Expr:
        b = (self.global_scope if e.is_global else scope).lookup(e.name)
        if b is None:
            raise P4CompileError(e.loc, f"{e.name}: not declared")
        e.ref = b
        return reference(e.name, b, e.loc)

    def _check_type_expr(self, e: A.TypeExpr, scope, want) -> I.Expr:
        tr = e.type
        if isinstance(tr, A.TName) and not tr.args:
            b = self.types.type_name_binding(tr, scope)
            if b is not None and not isinstance(b, (TypeB, BlockDeclB)):
                # a variable or parameter shadowing a type name
                return self._check_path(A.Path(tr.loc, tr.name, tr.is_global), scope, want)
        t = self.types.resolve(e.type, scope)
        return I.TypeName(t, e.loc, TypeB(t))

    def _check_member(self, e: A.Member, scope: Scope, want) -> I.Expr:
        base = self.check(e.expr, scope)
        t = base.type
        if isinstance(base, I.TypeName):
            if isinstance(t, EnumT):
                if e.name not in t.members:
                    raise P4CompileError(e.loc, f"{t.name} has no member {e.name}")
                return I.EnumMember(t, e.loc, e.name, const=t.values[e.name])
            if isinstance(t, ErrorT):
                if e.name not in self.out.errors:
                    raise P4CompileError(e.loc, f"error.{e.name}: not declared")
                return I.ErrorMember(ERROR, e.loc, e.name, const=self.out.errors[e.name])
            raise P4CompileError(e.loc, f"{t}.{e.name}: invalid member")
        if isinstance(t, StructT):
            ft = t.field_type(e.name)
            if ft is None:
                if e.name not in HEADER_METHODS:
                    raise P4CompileError(e.loc, f"{t.name} has no field {e.name}")
                return I.MethodRef(VOID, e.loc, base, e.name)
            c = base.const
            value = c.item(e.name) if isinstance(c, AggConst) and c.valid is not False else None
            return I.Field(ft, e.loc, base, e.name, const=value)
        if isinstance(t, StackT):
            if e.name == "next" and not self.walk.in_parser:
                raise P4CompileError(e.loc, "next: only allowed in parsers")
            if e.name in ("next", "last"):
                return I.StackProperty(t.elem, e.loc, base, e.name)
            if e.name in ("lastIndex", "nextIndex", "size"):
                return I.StackProperty(BitsT(32), e.loc, base, e.name,
                                       const=t.size if e.name == "size" else None)
            return I.MethodRef(VOID, e.loc, base, e.name)
        if isinstance(t, ObjectT):
            if t.kind == "apply_result":
                if e.name in ("hit", "miss"):
                    return I.ApplyResultMember(BOOL, e.loc, base, e.name)
                if e.name == "action_run":
                    return I.ApplyResultMember(ObjectT("action_run", "action_run", t.decl), e.loc,
                                               base, e.name)
                raise P4CompileError(e.loc, f"table apply result has no member {e.name}")
            return I.MethodRef(VOID, e.loc, base, e.name)
        raise P4CompileError(e.loc, f"{t} has no member {e.name}")

    def _check_index(self, e: A.Index, scope, want) -> I.Expr:
        base = self.check(e.expr, scope)
        idx = self.check(e.index, scope)
        t, c = base.type, idx.const
        if isinstance(t, StackT):
            if c is not None and not 0 <= c < t.size:
                raise P4CompileError(e.loc, f"index {c} out of bounds of {t}")
            return I.StackIndex(t.elem, e.loc, base, idx)
        if isinstance(t, TupleT) and c is not None:
            value = base.const.items[c] if isinstance(base.const, AggConst) and isinstance(c, int) else None
            return I.TupleIndex(t.items[c], e.loc, base, c, const=value)
        raise P4CompileError(e.loc, f"cannot index a value of type {t}")

    def _check_slice(self, e: A.Slice, scope, want) -> I.Expr:
        base = self.check(e.expr, scope)
        hi = self.const_int(e.hi, scope)
        lo = self.const_int(e.lo, scope)
        t, c = base.type, base.const
        if isinstance(t, InfIntT) and c is not None:
            return I.Slice(BitsT(hi - lo + 1), e.loc, base, hi, lo, const=fold_slice(c, t, hi, lo))
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"cannot slice a value of type {t}")
        if not (0 <= lo <= hi < t.width):
            raise P4CompileError(e.loc, f"slice [{hi}:{lo}] out of range of {t}")
        value = fold_slice(c, t, hi, lo) if c is not None else None
        return I.Slice(BitsT(hi - lo + 1), e.loc, base, hi, lo, const=value)

    def _check_cast(self, e: A.Cast, scope, want) -> I.Expr:
        t = self.types.resolve(e.type, scope)
        return cast_expr(self.check(e.expr, scope), t, e.loc)

    def _check_ternary(self, e: A.Ternary, scope, want) -> I.Expr:
        c = self.check(e.cond, scope)
        if not isinstance(c.type, BoolT):
            raise P4CompileError(e.cond.loc, f"?: condition must be bool, got {c.type}")
        a = self.check(e.then, scope, want)
        b = self.check(e.other, scope, a.type if isinstance(a.type, BitsT) else want)
        if isinstance(a.type, InfIntT) and not isinstance(b.type, InfIntT):
            a = convert(a, b.type, e.loc)
        elif not (isinstance(a.type, InfIntT) and isinstance(b.type, InfIntT)):
            a, b = unify(a, b, e.loc, "?:")
        if c.const is None and isinstance(a.type, InfIntT):
            raise P4CompileError(e.loc, "?: width of the result cannot be inferred")
        value = None if c.const is None else (a.const if c.const else b.const)
        return I.Ternary(a.type, e.loc, c, a, b, const=value)

    def _check_operator(self, e: A.Unary | A.Binary, scope, want) -> I.Expr:
        return self.operators.check(e, scope, want)

    def _check_aggregate(self, e: A.ListExpr | A.StructExpr | A.InvalidHeader | A.DefaultValue,
                         scope, want) -> I.Expr:
        return self.aggregates.check(e, scope, want)

    def _check_call(self, e: A.Call, scope, want) -> I.Expr:
        return self.calls.check_call(e, scope, want)

    def _check_mask_outside_keyset(self, e, scope, want) -> I.Expr:
        raise P4CompileError(e.loc, "&&& is only allowed in select cases and table entries")

    def _check_range_outside_keyset(self, e, scope, want) -> I.Expr:
        raise P4CompileError(e.loc, ".. is only allowed in select cases and table entries")


def reference(name: str, b, loc) -> I.Expr:
    """The IR node naming binding `b`."""
    if isinstance(b, VarB):
        return I.VarRef(b.ty, loc, name, b)
    if isinstance(b, ConstB):
        return I.ConstRef(b.ty, loc, name, b, const=b.value)
    if isinstance(b, InstB):
        return I.InstanceRef(b.ty, loc, name, b)
    if isinstance(b, TypeB):
        return I.TypeName(b.ty, loc, b)
    if isinstance(b, (ActionB, FuncB, ExternFuncB, BlockDeclB)):
        return I.CallableRef(VOID, loc, name, b)
    raise P4CompileError(loc, f"{name}: cannot be used here")


# the checker of each expression node class, called as check(the ExpressionChecker, e,
# scope, want)
CHECKERS: dict[type, Callable[..., I.Expr]] = {
    A.IntLit: ExpressionChecker._check_int_literal,
    A.BoolLit: ExpressionChecker._check_bool_literal,
    A.StrLit: ExpressionChecker._check_string_literal,
    A.DontCare: ExpressionChecker._check_dont_care,
    A.DefaultKey: ExpressionChecker._check_dont_care,
    A.Path: ExpressionChecker._check_path,
    A.TypeExpr: ExpressionChecker._check_type_expr,
    A.Member: ExpressionChecker._check_member,
    A.Index: ExpressionChecker._check_index,
    A.Slice: ExpressionChecker._check_slice,
    A.Cast: ExpressionChecker._check_cast,
    A.Unary: ExpressionChecker._check_operator,
    A.Binary: ExpressionChecker._check_operator,
    A.Ternary: ExpressionChecker._check_ternary,
    A.ListExpr: ExpressionChecker._check_aggregate,
    A.StructExpr: ExpressionChecker._check_aggregate,
    A.InvalidHeader: ExpressionChecker._check_aggregate,
    A.DefaultValue: ExpressionChecker._check_aggregate,
    A.Call: ExpressionChecker._check_call,
    A.Mask: ExpressionChecker._check_mask_outside_keyset,
    A.Range: ExpressionChecker._check_range_outside_keyset,
}
