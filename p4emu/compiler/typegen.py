"""Type resolution, compile-time constants and conversions: implicit ones (`coerce`: an
untyped int taking a width, a serializable enum and its underlying type) and casts
(mixin of `ProgramGen`)."""

from __future__ import annotations

from p4emu.compiler.scope import BlockDeclB, Scope, TypeB
from p4emu.compiler.values import V, lit, runtime_int, wrap
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import (
    BOOL,
    DONTCARE,
    ERROR,
    INFINT,
    MATCH_KIND,
    STRING,
    VOID,
    BitsT,
    BoolT,
    EnumT,
    InfIntT,
    ObjectT,
    StackT,
    StructT,
    TupleT,
    Type,
    TypeVarT,
    VarbitT,
    same_type,
)


class TypeGen:
    """Types and constants; `self` is the `ProgramGen`."""

    # -- types -------------------------------------------------------------------------
    def resolve_type(self, tr: A.TypeRef, scope: Scope) -> Type:
        if isinstance(tr, A.TBits):
            w = self.const_int(tr.width, scope)
            if tr.varbit:
                return VarbitT(w)
            if w <= 0 and not (w == 0 and not tr.signed):
                raise P4CompileError(tr.loc, f"invalid type width {w}")
            return BitsT(w, tr.signed)
        if isinstance(tr, A.TBase):
            return {"bool": BOOL, "error": ERROR, "string": STRING, "void": VOID,
                    "match_kind": MATCH_KIND, "int": INFINT, "_": DONTCARE}[tr.name]
        if isinstance(tr, A.TTuple):
            return TupleT([self.resolve_type(a, scope) for a in tr.args])
        if isinstance(tr, A.TStack):
            elem = self.resolve_type(tr.elem, scope)
            if not isinstance(elem, StructT) or elem.kind not in ("header", "header_union"):
                raise P4CompileError(tr.loc, f"header stack element must be a header: {elem}")
            return StackT(elem, self.const_int(tr.size, scope))
        if isinstance(tr, A.TName):
            b = (self.global_scope if tr.is_global else scope).lookup(tr.name)
            if isinstance(b, TypeB):
                if isinstance(b.ty, ObjectT) and b.ty.kind == "generic_struct":
                    if not tr.args:
                        raise P4CompileError(tr.loc, f"{tr.name}: generic type needs type arguments")
                    return self.specialize_struct(b.ty, self._type_args(b.ty.decl, tr.args, scope), tr.loc)
                if tr.args and isinstance(b.ty, ObjectT):
                    return ObjectT(b.ty.kind, b.ty.name, b.ty.decl,
                                   self._type_args(b.ty.decl, tr.args, scope))
                return b.ty
            if isinstance(b, BlockDeclB):
                return b.ty
            raise P4CompileError(tr.loc, f"{tr.name}: unknown type")
        raise P4CompileError(tr.loc, "invalid type")

    def _type_args(self, decl, args, scope) -> dict:
        params = getattr(decl, "type_params", []) or []
        if len(params) != len(args):
            raise P4CompileError(args[0].loc if args else None,
                                 f"{decl.name}: expected {len(params)} type arguments, got {len(args)}")
        return {p: self.resolve_type(a, scope) for p, a in zip(params, args, strict=True)}

    # -- constants ---------------------------------------------------------------------
    def const_int(self, e: A.Expr, scope: Scope) -> int:
        v = self.expr(e, scope, None)
        if not isinstance(v.const, int) or isinstance(v.const, bool):
            raise P4CompileError(e.loc, "expected a compile-time integer constant")
        return v.const

    def const_value(self, e: A.Expr, scope: Scope, want: Type | None = None) -> V:
        v = self.expr(e, scope, None, want)
        if v.const is None:
            raise P4CompileError(e.loc, "expected a compile-time constant")
        return v

    # -- coercion ----------------------------------------------------------------------
    def coerce(self, v: V, t: Type, loc) -> V:
        """Implicit conversion of `v` to type `t` (only infint literals and identical types)."""
        if t is None or isinstance(t, (TypeVarT,)) or t is DONTCARE:
            return v
        if same_type(v.ty, t):
            return v
        if isinstance(v.ty, InfIntT):
            if isinstance(t, BitsT):
                c = wrap(v.const, t) if v.const is not None else None
                if c is None:
                    return V(f"({v.py} & {t.mask})" if not t.signed else self._wrap_py(v.py, t), t)
                return V(lit(c), t, c)
            if isinstance(t, EnumT) and t.underlying is not None:
                return V(v.py, t, v.const)
            if isinstance(t, InfIntT):
                return v
        if isinstance(t, TupleT) and isinstance(v.ty, TupleT) and len(t.items) == len(v.ty.items):
            return v
        if isinstance(t, StructT) and isinstance(v.ty, TupleT):
            return v  # list expression assigned to a struct/header: handled by assignment
        if isinstance(t, BitsT) and isinstance(v.ty, EnumT) and v.ty.underlying == t:
            return V(v.py, t, v.const)
        raise P4CompileError(loc, f"type mismatch: expected {t}, got {v.ty}")

    def _wrap_py(self, py: str, t: BitsT) -> str:
        if t.signed:
            h = 1 << (t.width - 1)
            return f"(((({py}) + {h}) & {t.mask}) - {h})"
        return f"(({py}) & {t.mask})"

    def unify_binary(self, a: V, b: V, loc, op: str) -> tuple[V, V]:
        if isinstance(a.ty, InfIntT) and not isinstance(b.ty, InfIntT):
            a = self.coerce(a, b.ty, loc)
        elif isinstance(b.ty, InfIntT) and not isinstance(a.ty, InfIntT):
            b = self.coerce(b, a.ty, loc)
        if not same_type(a.ty, b.ty):
            if isinstance(a.ty, EnumT) and a.ty.underlying is not None and b.ty == a.ty.underlying:
                return a, V(b.py, a.ty, b.const)
            if isinstance(b.ty, EnumT) and b.ty.underlying is not None and a.ty == b.ty.underlying:
                return V(a.py, b.ty, a.const), b
            raise P4CompileError(loc, f"{op}: cannot operate on {a.ty} and {b.ty}")
        return a, b

    # -- casts -------------------------------------------------------------------------
    def cast(self, v: V, t: Type, loc) -> V:
        """`(t) v`, also written `t(v)` for bit/bool types: width and signedness changes wrap,
        bool <-> bit<1>, a serializable enum <-> its underlying type, a list to a struct,
        bit<N> to `int`."""
        s = v.ty
        if same_type(s, t):
            return V(v.py, t, v.const)
        if isinstance(t, BitsT):
            if isinstance(s, (BitsT, InfIntT)):
                if v.const is not None:
                    c = wrap(v.const, t)
                    return V(lit(c), t, c)
                if isinstance(s, BitsT) and not s.signed and not t.signed and t.width >= s.width:
                    return V(v.py, t)
                if t.signed:
                    h = 1 << (t.width - 1)
                    return V(f"((({v.py} + {h}) & {t.mask}) - {h})" if getattr(s, "signed", 1) else
                             f"((({v.py} & {t.mask}) ^ {h}) - {h})", t)
                return V(f"({v.py} & {t.mask})", t)
            if isinstance(s, BoolT):
                if v.const is not None:
                    return V(lit(int(v.const)), t, int(v.const))
                return V(f"int({v.py})", t)
            if isinstance(s, EnumT) and s.underlying is not None:
                return self.cast(V(v.py, s.underlying, v.const), t, loc)
        if isinstance(t, BoolT) and isinstance(s, (BitsT, InfIntT)):
            if isinstance(s, BitsT) and (s.width != 1 or s.signed):
                raise P4CompileError(loc, f"cannot cast {s} to bool (only bit<1>)")
            if isinstance(s, InfIntT) and v.const not in (0, 1):
                raise P4CompileError(loc, f"cannot cast {v.const} to bool")
            if v.const is not None:
                return V(lit(bool(v.const)), BOOL, bool(v.const))
            return V(f"({v.py} != 0)", BOOL)
        if isinstance(t, EnumT) and t.underlying is not None and isinstance(s, (BitsT, InfIntT)):
            inner = self.cast(v, t.underlying, loc)
            return V(inner.py, t, inner.const)
        if isinstance(t, StructT) and isinstance(s, TupleT):
            return V(v.py, t, v.const, v.ref)
        if isinstance(t, InfIntT) and (v.const is not None or isinstance(s, BitsT)):
            return V(lit(v.const), t, v.const) if v.const is not None else runtime_int(v)
        raise P4CompileError(loc, f"cannot cast {s} to {t}")
