"""Type resolution (mixin of `ProgramGen`): a type reference -> its `Type` (widths and
stack sizes are compile-time constants; a generic struct is specialized per use).
Compile-time constants are checked by `passes/check_declarations.py`."""

from __future__ import annotations

from p4emu.compiler.scope import BlockDeclB, Scope, TypeB
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
    """Types; `self` is the `ProgramGen`."""

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
