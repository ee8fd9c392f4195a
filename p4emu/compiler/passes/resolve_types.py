"""Type resolution (`TypeResolver`, a pass of the `ProgramChecker`): a type reference -> its
`Type` (widths and stack sizes are compile-time constants; a generic struct is specialized
per use; a type name denotes what the resolution pass bound it to, `resolve_type_names.py`,
unless a type parameter or a local name of the enclosing blocks), and the fields of each
header/struct/union type, checked. Compile-time constants are checked by
`check_declarations.py`."""

from __future__ import annotations

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.resolve_type_names import TYPE_VARIABLE
from p4emu.compiler.passes.unresolved import Unresolved
from p4emu.compiler.scope import Binding, BlockDeclB, Scope, TypeB, tvar_scope
from p4emu.compiler.structs import check_header_layout, flat_width
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
    TypeVarT,
    VarbitT,
)


class TypeResolver(CompilePass):
    """Type references -> types; the fields of header/struct/union types."""

    USES = ("exprs",)

    def resolve(self, tr: A.TypeRef, scope: Scope) -> Type:
        if isinstance(tr, A.TBits):
            w = self.exprs.const_int(tr.width, scope)
            if tr.varbit:
                return VarbitT(w)
            if w <= 0 and not (w == 0 and not tr.signed):
                raise P4CompileError(tr.loc, f"invalid type width {w}")
            return BitsT(w, tr.signed)
        if isinstance(tr, A.TBase):
            return {"bool": BOOL, "error": ERROR, "string": STRING, "void": VOID,
                    "match_kind": MATCH_KIND, "int": INFINT, "_": DONTCARE}[tr.name]
        if isinstance(tr, A.TTuple):
            return TupleT([self.resolve(a, scope) for a in tr.args])
        if isinstance(tr, A.TStack):
            elem = self.resolve(tr.elem, scope)
            if not isinstance(elem, StructT) or elem.kind not in ("header", "header_union"):
                raise P4CompileError(tr.loc, f"header stack element must be a header: {elem}")
            return StackT(elem, self.exprs.const_int(tr.size, scope))
        if isinstance(tr, A.TName):
            b = self.type_name_binding(tr, scope)
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

    def type_name_binding(self, tr: A.TName, scope: Scope) -> Binding | None:
        """What the name of type reference `tr` denotes: a type variable or a name declared
        in the enclosing blocks (`scope`, short of the global scope), else the top-level
        declaration the resolution pass bound it to (`resolve_type_names.py`); None for
        no declaration."""
        local = None if tr.is_global else scope.lookup_local(tr.name)
        ref = self.env.names.types.get(tr)
        if local is not None:
            return local
        if ref is TYPE_VARIABLE:
            # a type parameter the checker has not bound (no program of the tree has one):
            # the global scope, as before the pass
            return self.global_scope.lookup(tr.name)
        if isinstance(ref, Unresolved):
            return None
        return self.env.decl_bindings.get(id(ref))

    def _type_args(self, decl, args, scope) -> dict:
        params = getattr(decl, "type_params", []) or []
        if len(params) != len(args):
            raise P4CompileError(args[0].loc if args else None,
                                 f"{decl.name}: expected {len(params)} type arguments, got {len(args)}")
        return {p: self.resolve(a, scope) for p, a in zip(params, args, strict=True)}

    def define_struct(self, t: StructT, d: A.HeaderDecl, scope: Scope) -> None:
        """Resolve and check the fields of struct/header/union `t` declared by `d`; `t`
        joins the program's types (its class is generated from them)."""
        t.py = f"H_{self.next_id()}_{t.name}"
        for f in d.fields:
            ft = self.resolve(f.type, scope)
            if d.kind == "header" and not isinstance(ft, VarbitT) and flat_width(ft) is None:
                raise P4CompileError(f.loc, f"header field {f.name}: type {ft} not allowed in a header")
            if d.kind == "header_union" and not (isinstance(ft, StructT) and ft.kind == "header"):
                raise P4CompileError(f.loc, f"header_union field {f.name} must be a header")
            t.fields.append((f.name, ft))
            t.field_annotations[f.name] = f.annotations
        if d.kind == "header":
            check_header_layout(t, d.loc)
        self.out.struct_types.append(t)

    def specialize_struct(self, generic: ObjectT, type_args: dict, loc) -> StructT:
        """The concrete type of `S<T1, ...>` for a generic struct/header `S`, one per
        distinct list of type arguments (p4c's SpecializeGenericTypes names them S_0...)."""
        d = generic.decl
        args = [type_args[p] for p in d.type_params]
        if any(isinstance(a, TypeVarT) for a in args):
            # in a generic function's signature: a pattern the call's arguments unify with
            t = StructT(d.kind, f"{d.name}<{', '.join(map(str, args))}>", annotations=d.annotations)
            t.generic_origin = (d.name, args)
            return t
        key = (d.name, tuple(map(str, args)))
        t = self.env.specialized.get(key)
        if t is None:
            k = sum(1 for n, _ in self.env.specialized if n == d.name)
            t = StructT(d.kind, f"{d.name}_{k}", annotations=d.annotations)
            t.generic_origin = (d.name, args)
            self.env.specialized[key] = t
            self.define_struct(t, d, tvar_scope(self.global_scope, type_args))
        return t
