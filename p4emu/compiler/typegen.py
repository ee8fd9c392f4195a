"""Type resolution, compile-time constants and conversions of generated values (`coerce`,
`cast`: those of the type checker, `passes/conversions.py`, applied to a `V`) (mixin of
`ProgramGen`)."""

from __future__ import annotations

from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import BlockDeclB, Scope, TypeB
from p4emu.compiler.values import V
from p4emu.ir import expressions as I
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
    ObjectT,
    StackT,
    StructT,
    TupleT,
    Type,
    VarbitT,
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
    def const_value(self, e: A.Expr, scope: Scope, want: Type | None = None) -> V:
        v = self.expr(e, scope, None, want)
        if v.const is None:
            raise P4CompileError(e.loc, "expected a compile-time constant")
        return v

    # -- conversions of generated values -----------------------------------------------
    def coerce(self, v: V, t: Type, loc) -> V:
        """Implicit conversion of `v` to type `t` (`convert` of the type checker)."""
        if t is None or v.ty is t:  # the common case, without building IR
            return v
        return self.emit_expr(fold(self.convert(I.Evaluated(v.ty, loc, v, const=v.const), t, loc)), None)

    def cast(self, v: V, t: Type, loc) -> V:
        """`(t) v` (`cast_expr` of the type checker)."""
        return self.emit_expr(fold(self.cast_expr(I.Evaluated(v.ty, loc, v, const=v.const), t, loc)), None)
