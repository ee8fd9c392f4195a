"""Expressions (mixin of `ProgramGen`): `expr` type-checks a P4 expression and returns
its generated Python as a `V` (type, constant value if known), dispatching on the AST node
class through `EXPR_GENERATORS`. Here: literals, names, member, index and slice accesses
and `?:`; operators are in `operators.py`, list/struct/`{#}`/`...` expressions in
`aggregates.py`, calls in `calls.py`, types and conversions (coercions, casts) in
`typegen.py`.

`want` is the type the context expects: it gives untyped int literals and brace
expressions their type (as p4c's TypeInference does); callers still coerce the result
where they need that type.

Run-time representation: bit<N> = unsigned int, int<N> = signed int, bool = bool,
error / enum = int code (serializable enum: its value), varbit = (width, value) tuple,
headers/structs = generated __slots__ classes, header stacks = `Stack`.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.aggregates import AggregateGen
from p4emu.compiler.operators import OperatorGen
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
from p4emu.compiler.typegen import TypeGen
from p4emu.compiler.values import AggConst, V, lit, unsigned_py, wrap
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


class ExprGen(OperatorGen, AggregateGen, TypeGen):
    """Expression half of the generator; `self` is the `ProgramGen`."""

    # -- expressions -------------------------------------------------------------------
    def expr(self, e: A.Expr, scope: Scope, fn, want: Type | None = None) -> V:
        gen = EXPR_GENERATORS.get(type(e))
        if gen is None:
            raise unsupported(e.loc, f"expression {type(e).__name__}")
        v = gen(self, e, scope, fn, want)
        e.ty = v.ty
        return v

    def _int_literal(self, e: A.IntLit, scope, fn, want) -> V:
        if e.width is None:
            if isinstance(want, BitsT):
                c = wrap(e.value, want)
                return V(lit(c), want, c)
            return V(lit(e.value), INFINT, e.value)
        t = BitsT(e.width, e.signed)
        c = wrap(e.value, t)
        return V(lit(c), t, c)

    def _bool_literal(self, e, scope, fn, want) -> V:
        return V(lit(e.value), BOOL, e.value)

    def _string_literal(self, e, scope, fn, want) -> V:
        return V(repr(e.value), STRING, e.value)

    def _dont_care(self, e, scope, fn, want) -> V:
        return V("None", DONTCARE)

    def _path(self, e: A.Path, scope: Scope, fn, want) -> V:
        b = (self.global_scope if e.is_global else scope).lookup(e.name)
        if b is None:
            raise P4CompileError(e.loc, f"{e.name}: not declared")
        e.ref = b
        if isinstance(b, VarB):
            return V(b.py, b.ty, None, b)
        if isinstance(b, ConstB):
            return V(lit(b.value) if not isinstance(b.value, V) else b.value.py, b.ty, b.value, b)
        if isinstance(b, InstB):
            return V(b.py, b.ty, None, b)
        if isinstance(b, TypeB):
            return V("None", b.ty, None, b)
        if isinstance(b, (ActionB, FuncB, ExternFuncB, BlockDeclB)):
            return V("None", VOID, None, b)
        raise P4CompileError(e.loc, f"{e.name}: cannot be used here")

    def _type_expr(self, e: A.TypeExpr, scope, fn, want) -> V:
        tr = e.type
        if isinstance(tr, A.TName) and not tr.args:
            b = (self.global_scope if tr.is_global else scope).lookup(tr.name)
            if b is not None and not isinstance(b, (TypeB, BlockDeclB)):
                # a variable or parameter shadowing a type name
                return self._path(A.Path(tr.loc, tr.name, tr.is_global), scope, fn, want)
        t = self.resolve_type(e.type, scope)
        return V("None", t, None, TypeB(t))

    def _member(self, e: A.Member, scope: Scope, fn, want) -> V:
        base = self.expr(e.expr, scope, fn)
        t = base.ty
        if isinstance(base.ref, TypeB):
            if isinstance(t, EnumT):
                if e.name not in t.members:
                    raise P4CompileError(e.loc, f"{t.name} has no member {e.name}")
                val = t.values[e.name]
                return V(lit(val), t, val)
            if isinstance(t, ErrorT):
                if e.name not in self.out.errors:
                    raise P4CompileError(e.loc, f"error.{e.name}: not declared")
                val = self.out.errors[e.name]
                return V(lit(val), ERROR, val)
            raise P4CompileError(e.loc, f"{t}.{e.name}: invalid member")
        if isinstance(t, StructT):
            ft = t.field_type(e.name)
            if ft is None:
                if e.name not in ("isValid", "setValid", "setInvalid", "minSizeInBits",
                                  "minSizeInBytes"):
                    raise P4CompileError(e.loc, f"{t.name} has no field {e.name}")
                return V("None", VOID, None, ("method", base, e.name))
            if isinstance(base.const, AggConst) and base.const.valid is not False:
                c = base.const.item(e.name)
                return V(lit(c), ft, c)
            return V(f"{base.py}.f_{e.name}", ft)
        if isinstance(t, StackT):
            if e.name == "next":
                if not self.walk.in_parser:
                    raise P4CompileError(e.loc, "next: only allowed in parsers")
                return V(f"{base.py}.next_elem()", t.elem)
            if e.name == "last":
                return V(f"{base.py}.last_elem()", t.elem)
            if e.name == "lastIndex":
                return V(f"(({base.py}.nxt - 1) & 0xffffffff)", BitsT(32))
            if e.name in ("size",):
                return V(lit(t.size), BitsT(32), t.size)
            if e.name == "nextIndex":
                return V(f"{base.py}.nxt", BitsT(32))
            return V("None", VOID, None, ("method", base, e.name))
        if isinstance(t, ObjectT):
            if t.kind == "apply_result":
                if e.name == "hit":
                    return V(f"{base.py}.hit", BOOL)
                if e.name == "miss":
                    return V(f"(not {base.py}.hit)", BOOL)
                if e.name == "action_run":
                    return V(f"{base.py}.action_id", ObjectT("action_run", "action_run", base.ref))
                raise P4CompileError(e.loc, f"table apply result has no member {e.name}")
            return V("None", VOID, None, ("method", base, e.name))
        raise P4CompileError(e.loc, f"{t} has no member {e.name}")

    def _index(self, e: A.Index, scope, fn, want) -> V:
        base = self.expr(e.expr, scope, fn)
        idx = self.expr(e.index, scope, fn)
        if isinstance(base.ty, StackT):
            if idx.const is not None:
                if not 0 <= idx.const < base.ty.size:
                    raise P4CompileError(e.loc, f"index {idx.const} out of bounds of {base.ty}")
                return V(f"{base.py}.items[{idx.const}]", base.ty.elem)
            return V(f"{base.py}.at({idx.py})", base.ty.elem)
        if isinstance(base.ty, TupleT) and isinstance(base.const, AggConst) and isinstance(idx.const, int):
            c = base.const.items[idx.const]
            return V(lit(c), base.ty.items[idx.const], c)
        if isinstance(base.ty, TupleT) and idx.const is not None:
            return V(f"{base.py}[{idx.const}]", base.ty.items[idx.const])
        raise P4CompileError(e.loc, f"cannot index a value of type {base.ty}")

    def _slice(self, e: A.Slice, scope, fn, want) -> V:
        base = self.expr(e.expr, scope, fn)
        hi = self.const_int(e.hi, scope)
        lo = self.const_int(e.lo, scope)
        if isinstance(base.ty, InfIntT) and base.const is not None:
            w = hi - lo + 1
            c = (base.const >> lo) & ((1 << w) - 1)
            return V(lit(c), BitsT(w), c)
        if not isinstance(base.ty, BitsT):
            raise P4CompileError(e.loc, f"cannot slice a value of type {base.ty}")
        if not (0 <= lo <= hi < base.ty.width):
            raise P4CompileError(e.loc, f"slice [{hi}:{lo}] out of range of {base.ty}")
        w = hi - lo + 1
        t = BitsT(w)
        src = unsigned_py(base)
        if base.const is not None:
            c = (base.const & base.ty.mask) >> lo & t.mask
            return V(lit(c), t, c)
        if lo == 0:
            return V(f"({src} & {t.mask})", t)
        if hi == base.ty.width - 1 and not base.ty.signed:
            return V(f"({src} >> {lo})", t)
        return V(f"(({src} >> {lo}) & {t.mask})", t)

    def _cast_expr(self, e: A.Cast, scope, fn, want) -> V:
        t = self.resolve_type(e.type, scope)
        v = self.expr(e.expr, scope, fn)
        return self.cast(v, t, e.loc)

    def _ternary(self, e: A.Ternary, scope, fn, want) -> V:
        c = self.expr(e.cond, scope, fn)
        if not isinstance(c.ty, BoolT):
            raise P4CompileError(e.cond.loc, f"?: condition must be bool, got {c.ty}")
        a, la = self.capture(fn, lambda: self.expr(e.then, scope, fn, want), extra_indent=1)
        b, lb = self.capture(fn, lambda: self.expr(e.other, scope, fn, a.ty if isinstance(a.ty, BitsT) else want),
                             extra_indent=1)
        if isinstance(a.ty, InfIntT) and not isinstance(b.ty, InfIntT):
            a = self.coerce(a, b.ty, e.loc)
        elif not (isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT)):
            a, b = self.unify_binary(a, b, e.loc, "?:")
        if la or lb:  # an arm has side effects: only the chosen arm may run them
            if isinstance(a.ty, InfIntT):
                raise P4CompileError(e.loc, "?: width of the result cannot be inferred")
            return self.branch_join(fn, c, (a, la), (b, lb))
        if c.const is not None:
            return a if c.const else b
        if isinstance(a.ty, InfIntT):
            raise P4CompileError(e.loc, "?: width of the result cannot be inferred")
        return V(f"({a.py} if {c.py} else {b.py})", a.ty)

    def _call_expr(self, e: A.Call, scope, fn, want) -> V:
        return self.call(e, scope, fn, want, as_statement=False)

    def _mask_outside_keyset(self, e, scope, fn, want) -> V:
        raise P4CompileError(e.loc, "&&& is only allowed in select cases and table entries")

    def _range_outside_keyset(self, e, scope, fn, want) -> V:
        raise P4CompileError(e.loc, ".. is only allowed in select cases and table entries")


# the generator of each expression node class, called as gen(self, e, scope, fn, want)
EXPR_GENERATORS: dict[type, Callable[..., V]] = {
    A.IntLit: ExprGen._int_literal,
    A.BoolLit: ExprGen._bool_literal,
    A.StrLit: ExprGen._string_literal,
    A.DontCare: ExprGen._dont_care,
    A.DefaultKey: ExprGen._dont_care,
    A.Path: ExprGen._path,
    A.TypeExpr: ExprGen._type_expr,
    A.Member: ExprGen._member,
    A.Index: ExprGen._index,
    A.Slice: ExprGen._slice,
    A.Cast: ExprGen._cast_expr,
    A.Unary: ExprGen._unary,
    A.Binary: ExprGen._binary,
    A.Ternary: ExprGen._ternary,
    A.ListExpr: ExprGen._list_expr,
    A.StructExpr: ExprGen._struct_expr,
    A.InvalidHeader: ExprGen._invalid_header,
    A.DefaultValue: ExprGen._default_value_expr,
    A.Call: ExprGen._call_expr,
    A.Mask: ExprGen._mask_outside_keyset,
    A.Range: ExprGen._range_outside_keyset,
}
