"""Expressions that build struct, header and tuple values from parts (mixin of
`ProgramGen`): list expressions `{a, b}`, struct expressions `{f = a, ...}`, the invalid
header `{#}` and default values `...`. The context type (`want`) decides what a list
expression builds, as in p4c's TypeInference; a value whose parts are all constants gets
an `AggConst`, so constants of these types fold.
"""

from __future__ import annotations

from p4emu.compiler.values import V, agg_const, zero_value
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    BitsT,
    BoolT,
    InfIntT,
    StackT,
    StructT,
    TupleT,
    Type,
    TypeVarT,
)


class AggregateGen:
    """`self` is the `ProgramGen`."""

    def _list_expr(self, e: A.ListExpr, scope, fn, want) -> V:
        wants = want.items if isinstance(want, TupleT) and len(want.items) == len(e.items) else None
        if isinstance(want, StructT) and (len(want.fields) == len(e.items) or (
                e.rest_default and len(e.items) <= len(want.fields))):
            wants = [t for _, t in want.fields][: len(e.items)]
        elif e.rest_default:
            raise P4CompileError(e.loc, "`...` needs a struct or header type from the context")
        vals = self.in_order(fn, [
            (lambda i=i, x=x: self.expr(x, scope, fn, wants[i] if wants else None))
            for i, x in enumerate(e.items)])
        if wants:
            vals = [self.coerce(v, t, x.loc) if not isinstance(t, (StructT, StackT)) else v
                    for v, t, x in zip(vals, wants, e.items, strict=True)]
        if e.rest_default:
            vals += [self.default_value(t) for _, t in want.fields[len(vals):]]
            wants = [t for _, t in want.fields]
        if isinstance(want, StructT) and want.kind in ("struct", "header") and wants:
            py = f"{want.py}.build({', '.join(v.py for v in vals)})"
            return V(py, want, agg_const(py, vals, want), ("list", vals))
        t = TupleT([v.ty for v in vals])
        py = "(" + "".join(v.py + ", " for v in vals) + ")"
        return V(py, t, agg_const(py, vals, None), ("list", vals))

    def _struct_expr(self, e: A.StructExpr, scope, fn, want) -> V:
        target = want if isinstance(want, StructT) else None
        if e.type is not None:
            target = self.resolve_type(e.type, scope)
        if target is None:
            raise unsupported(e.loc, "struct expression without a known struct type")
        names = [n for n, _ in target.fields]
        given = dict(e.fields)
        if set(given) - set(names) or (set(given) != set(names) and not e.rest_default):
            raise P4CompileError(e.loc, f"struct expression fields do not match {target.name}")
        ftypes = dict(target.fields)
        # fields are evaluated in the order written (it matters for side effects)
        written = dict(zip(given, self.in_order(fn, [
            (lambda x=x, n=n: self.expr(x, scope, fn, ftypes[n])) for n, x in given.items()]), strict=True))
        vals = []
        for n, ft in target.fields:
            if n not in given:
                vals.append(self.default_value(ft))
                continue
            v = written[n]
            vals.append(self.coerce(v, ft, given[n].loc) if ft.is_scalar() else v)
        py = f"{target.py}.build({', '.join(v.py for v in vals)})"
        return V(py, target, agg_const(py, vals, target), ("struct", vals))

    def default_value(self, t: Type) -> V:
        """P4's default value: 0, false, invalid headers (a fresh object)."""
        if isinstance(t, BitsT):
            return V("0", t, 0)
        if isinstance(t, BoolT):
            return V("False", t, False)
        return V(zero_value(t), t)

    def _invalid_header(self, e, scope, fn, want) -> V:
        if not isinstance(want, StructT) or want.kind not in ("header", "header_union"):
            raise P4CompileError(e.loc, "{#} needs a header or header union type from the context")
        py = f"{want.py}()"
        if want.kind == "header":  # an invalid header constant (`const h_t H = {#};`)
            vals = [self.default_value(ft) for _, ft in want.fields]
            return V(py, want, agg_const(py, vals, want, valid=False))
        return V(py, want)

    def _default_value_expr(self, e, scope, fn, want) -> V:
        if want is None or isinstance(want, (InfIntT, TypeVarT)):
            raise P4CompileError(e.loc, "`...` needs a type from the context")
        return self.default_value(want)
