"""Top-level declarations (`GlobalDeclarer`, a pass of the `ProgramChecker`): errors, match
kinds, typedefs and `type`s, structs/headers/unions, enums, constants, externs, actions,
functions, parser/ control/package types and top-level extern instances, checked and bound
in the global scope in program order (a later declaration of another kind hides an earlier
one; a forward `extern Name;` stands until Name is declared). Constants, enum values and
extern instances are checked by `check_declarations.py`, struct fields by
`resolve_types.py`. Match kinds are only recorded as declared (`global_kinds`): the names a
table key uses are bound by the resolution pass (`resolve_names.py`). The type names the
pass bound to a declaration denote the binding it gets here (`GlobalEnv.decl_bindings`)."""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.scope import (
    ActionB,
    Binding,
    BlockDeclB,
    ConstB,
    ExternFuncB,
    FuncB,
    InstB,
    Scope,
    TypeB,
)
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import BitsT, EnumT, ObjectT, StructT


class GlobalDeclarer(CompilePass):
    """Top-level declarations, checked and bound in the global scope."""

    USES = ("blocks", "types", "declarations")

    def declare_global(self, d: A.Decl) -> Binding | None:
        """Check top-level declaration `d` and bind it in the global scope; the binding when
        the emitter has code to give it (an action; an extern instance, whose run-time
        object's name the emitter sets as `py`)."""
        g = self.global_scope
        before = g.names.get(d.name)
        b = self._declare_global(d, g)
        after = g.names.get(d.name)
        if after is not None and not isinstance(d, (A.ErrorDecl, A.MatchKindDecl)):
            self._bind_declaration(d, before, after)
        return b

    def _bind_declaration(self, d: A.Decl, before: Binding | None, after: Binding) -> None:
        """Record what the type names the pass bound to `d` denote. `d` replaced `before`
        (a forward declaration, a placeholder, a declaration of another kind): the names
        bound to that denote `d` from now on, as a scope lookup of them would."""
        bindings = self.env.decl_bindings
        bindings[id(d)] = after
        if before is not None and before is not after:
            for key in [k for k, v in bindings.items() if v is before]:
                bindings[key] = after

    def _declare_global(self, d: A.Decl, g: Scope) -> Binding | None:
        if getattr(d, "forward", False):  # `extern Name;` until (unless) Name is declared
            if d.name not in self.env.global_kinds:
                g.bind(d.name, TypeB(ObjectT("extern", d.name, d)))
            return None
        fwd = g.names.get(d.name)
        if isinstance(fwd, TypeB) and isinstance(fwd.ty, ObjectT) and getattr(fwd.ty.decl, "forward", False):
            g.names.pop(d.name)  # the declaration a forward `extern Name;` announced
        prev = self.env.global_kinds.get(d.name)
        if prev is type(d) and not isinstance(d, (A.ExternFuncDecl, A.ErrorDecl, A.MatchKindDecl)):
            raise P4CompileError(d.loc, f"{d.name}: duplicate declaration")
        if prev is not None and prev is not type(d):
            g.names.pop(d.name, None)  # a declaration of another kind: the later one is visible
        declare = GLOBAL_DECLARERS.get(type(d))
        if declare is None:
            raise unsupported(d.loc, f"top-level {type(d).__name__}")
        self.env.global_kinds[d.name] = type(d)
        return declare(self, d, g)

    def _declare_error(self, d: A.ErrorDecl, g: Scope) -> None:
        for m in d.members:
            self.out.errors.setdefault(m, len(self.out.errors))

    def _declare_match_kind(self, d: A.MatchKindDecl, g: Scope) -> None:
        pass  # its members are names the resolution pass binds (`resolve_names.py`)

    def _declare_typedef(self, d: A.TypedefDecl, g: Scope) -> None:
        t = self.types.resolve(d.type, g)
        if d.new_type:  # `type`: named in P4Info type_info, p4c's Type_Newtype
            t = BitsT(t.width, t.signed, d.name) if isinstance(t, BitsT) else t
            self.env.new_types[d.name] = t
        g.declare(d.name, loc=d.loc, b=TypeB(t))

    def _declare_struct(self, d: A.HeaderDecl, g: Scope) -> None:
        if d.type_params:
            # a generic struct/header: concrete types are made per use (specialize_struct)
            g.declare(d.name, loc=d.loc, b=TypeB(ObjectT("generic_struct", d.name, d)))
            return
        t = StructT(d.kind, d.name, annotations=d.annotations)
        g.declare(d.name, loc=d.loc, b=TypeB(t))
        self.types.define_struct(t, d, g)

    def _declare_enum(self, d: A.EnumDecl, g: Scope) -> None:
        under = self.types.resolve(d.underlying, g) if d.underlying is not None else None
        t = EnumT(d.name, [m for m, _ in d.members], under)
        if len(set(t.members)) != len(t.members):
            raise P4CompileError(d.loc, f"enum {d.name}: duplicate member")
        for m, e in d.members:
            if under is None:
                t.values[m] = len(t.values)
            else:
                if e is None:
                    raise P4CompileError(d.loc, f"serializable enum member {m} needs a value")
                t.values[m] = self.declarations.check_constant(e, g, under, e.loc).const
        g.declare(d.name, loc=d.loc, b=TypeB(t))

    def _declare_constant(self, d: A.VarDecl, g: Scope) -> None:
        c = self.declarations.check_const_decl(d, g, d.init.loc)
        g.declare(d.name, loc=d.loc, b=ConstB(c.type, c.const))

    def _declare_extern(self, d: A.ExternDecl, g: Scope) -> None:
        if d.name in ("packet_in", "packet_out"):  # replaces the built-in placeholder
            g.bind(d.name, TypeB(ObjectT(d.name, d.name, d)))
        else:
            g.declare(d.name, loc=d.loc, b=TypeB(ObjectT("extern", d.name, d)))

    def _declare_extern_function(self, d: A.ExternFuncDecl, g: Scope) -> None:
        b = g.names.get(d.name)
        if not isinstance(b, ExternFuncB):  # a later declaration adds an overload
            b = ExternFuncB(d.name)
            g.declare(d.name, loc=d.loc, b=b)
        b.overloads.append(d)

    def _declare_action(self, d: A.ActionDecl, g: Scope) -> ActionB:
        b = ActionB(d, _global_name(d), None)
        g.declare(d.name, loc=d.loc, b=b)
        b.params = self.blocks.action_params(d, g)
        return b

    def _declare_function(self, d: A.FunctionDecl, g: Scope) -> None:
        g.declare(d.name, loc=d.loc, b=FuncB(d))

    def _declare_block(self, d: A.ParserDecl | A.ControlDecl, g: Scope) -> None:
        kind = "parser" if isinstance(d, A.ParserDecl) else "control"
        g.declare(d.name, loc=d.loc, b=TypeB(ObjectT(kind, d.name, d)))

    def _declare_block_type(self, d: A.BlockTypeDecl, g: Scope) -> None:
        g.declare(d.name, loc=d.loc, b=BlockDeclB(d, ObjectT(d.kind + "_type", d.name, d)))

    def _declare_instance(self, d: A.InstanceDecl, g: Scope) -> InstB:
        t = self.types.resolve(d.type, g)
        if isinstance(t, ObjectT) and t.kind in ("parser", "control"):
            # p4c (TypeInference) allows only package and extern instances here
            raise P4CompileError(d.loc, f"{d.name}: cannot instantiate at top-level")
        if not isinstance(t, ObjectT) or t.kind != "extern":
            raise unsupported(d.loc, f"top-level instantiation of {t}")
        instance = self.declarations.check_extern_instance(t, _global_name(d), d.args, d.loc, g, d.annotations)
        b = InstB("extern", t, _global_name(d), "", d, extern=instance)
        g.declare(d.name, loc=d.loc, b=b)
        return b


# the declarer of each top-level declaration class, called as declare(the GlobalDeclarer, d, global scope)
GLOBAL_DECLARERS: dict[type, Callable[..., Binding | None]] = {
    A.ErrorDecl: GlobalDeclarer._declare_error,
    A.MatchKindDecl: GlobalDeclarer._declare_match_kind,
    A.TypedefDecl: GlobalDeclarer._declare_typedef,
    A.HeaderDecl: GlobalDeclarer._declare_struct,
    A.EnumDecl: GlobalDeclarer._declare_enum,
    A.VarDecl: GlobalDeclarer._declare_constant,
    A.ExternDecl: GlobalDeclarer._declare_extern,
    A.ExternFuncDecl: GlobalDeclarer._declare_extern_function,
    A.ActionDecl: GlobalDeclarer._declare_action,
    A.FunctionDecl: GlobalDeclarer._declare_function,
    A.ParserDecl: GlobalDeclarer._declare_block,
    A.ControlDecl: GlobalDeclarer._declare_block,
    A.BlockTypeDecl: GlobalDeclarer._declare_block_type,
    A.InstanceDecl: GlobalDeclarer._declare_instance,
}


def _global_name(d: A.Decl) -> str:
    anno = A.find_annotation(d.annotations, "name")
    if anno is not None and anno.string():
        return anno.string().lstrip(".")
    return d.name
