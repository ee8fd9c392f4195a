"""Expressions that build struct, header and tuple values from parts, in the type checker
(`AggregateChecker`, a pass of the `ProgramChecker`, checking these nodes for the
`ExpressionChecker`): list expressions `{a, b}`, struct expressions `{f = a, ...}`, the
invalid header `{#}` and default values `...`. The context type (`want`) decides what a
list expression builds, as in p4c's TypeInference; a value whose parts are all constants
is known (an `AggConst`), so constants of these types fold."""

from __future__ import annotations

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import convert
from p4emu.compiler.passes.folding import aggregate_const
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import BitsT, BoolT, InfIntT, StackT, StructT, TupleT, Type, TypeVarT


def default_value(t: Type, loc) -> I.Expr:
    """P4's default value of `t`: 0, false, invalid headers."""
    value = 0 if isinstance(t, BitsT) else False if isinstance(t, BoolT) else None
    return I.DefaultValue(t, loc, const=value)


class AggregateChecker(CompilePass):
    """List, struct, invalid-header and default-value expressions."""

    USES = ("types", "exprs")

    def check(self, e: A.ListExpr | A.StructExpr | A.InvalidHeader | A.DefaultValue, scope,
              want) -> I.Expr:
        return AGGREGATE_CHECKERS[type(e)](self, e, scope, want)

    def _check_list_expr(self, e: A.ListExpr, scope, want) -> I.Expr:
        n = len(e.items)
        wants = want.items if isinstance(want, TupleT) and len(want.items) == n else None
        if isinstance(want, StructT) and (len(want.fields) == n or (
                e.rest_default and n <= len(want.fields))):
            wants = [t for _, t in want.fields][:n]
        elif e.rest_default:
            raise P4CompileError(e.loc, "`...` needs a struct or header type from the context")
        items = [self.exprs.check(x, scope, wants[i] if wants else None) for i, x in enumerate(e.items)]
        if wants:
            items = [convert(v, t, x.loc) if not isinstance(t, (StructT, StackT)) else v
                     for v, t, x in zip(items, wants, e.items, strict=True)]
        if e.rest_default:
            items += [default_value(t, e.loc) for _, t in want.fields[n:]]
            wants = [t for _, t in want.fields]
        if isinstance(want, StructT) and want.kind in ("struct", "header") and wants:
            t = want
        else:
            t = TupleT([v.type for v in items])
        return I.ListExpr(t, e.loc, tuple(items), n, const=aggregate_const(t, items))

    def _check_struct_expr(self, e: A.StructExpr, scope, want) -> I.Expr:
        target = want if isinstance(want, StructT) else None
        if e.type is not None:
            target = self.types.resolve(e.type, scope)
        if target is None:
            raise unsupported(e.loc, "struct expression without a known struct type")
        names = [n for n, _ in target.fields]
        given = dict(e.fields)
        if set(given) - set(names) or (set(given) != set(names) and not e.rest_default):
            raise P4CompileError(e.loc, f"struct expression fields do not match {target.name}")
        ftypes = dict(target.fields)
        # fields are checked (and evaluated) in the order written
        written = {n: self.exprs.check(x, scope, ftypes[n]) for n, x in given.items()}
        values = []
        for n, ft in target.fields:
            if n not in given:
                values.append(default_value(ft, e.loc))
            else:
                v = written[n]
                values.append(convert(v, ft, given[n].loc) if ft.is_scalar() else v)
        order = tuple(names.index(n) for n in given)
        return I.StructExpr(target, e.loc, tuple(values), order,
                            const=aggregate_const(target, values))

    def _check_invalid_header(self, e, scope, want) -> I.Expr:
        if not isinstance(want, StructT) or want.kind not in ("header", "header_union"):
            raise P4CompileError(e.loc, "{#} needs a header or header union type from the context")
        value = None
        if want.kind == "header":  # an invalid header constant (`const h_t H = {#};`)
            value = aggregate_const(want, [default_value(ft, e.loc) for _, ft in want.fields], valid=False)
        return I.InvalidHeader(want, e.loc, const=value)

    def _check_default_value_expr(self, e, scope, want) -> I.Expr:
        if want is None or isinstance(want, (InfIntT, TypeVarT)):
            raise P4CompileError(e.loc, "`...` needs a type from the context")
        return default_value(want, e.loc)


# the checker of each aggregate node class, called as check(the AggregateChecker, e, scope,
# want)
AGGREGATE_CHECKERS = {
    A.ListExpr: AggregateChecker._check_list_expr,
    A.StructExpr: AggregateChecker._check_struct_expr,
    A.InvalidHeader: AggregateChecker._check_invalid_header,
    A.DefaultValue: AggregateChecker._check_default_value_expr,
}
