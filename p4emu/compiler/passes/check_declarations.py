"""The declaration checker (`DeclarationChecker`, a pass of the `ProgramChecker`): constants,
extern instantiations, value sets and the constructor arguments of parser/control instances
-> typed declarations (`p4emu.ir.declarations`). Values are compile-time constants
converted to their declared types; the v1model checks on extern instances (constructor
overload, unique P4Info names, register cell types, BMv2's hash algorithms) are made here.
The emitters are `program.ProgramGen.emit_global` and `blocks.py` (constants),
`extern_objects.py` (extern instances), `blocks.py` (value sets, sub-blocks)."""

from __future__ import annotations

from p4emu.compiler.checks import check_unique_name
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.check_arguments import bind_args
from p4emu.compiler.passes.conversions import cast_expr, convert
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import ConstB, InstB, Scope, TypeB, tvar_scope
from p4emu.compiler.values import key_width
from p4emu.ir import declarations as D
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import BitsT, EnumT, ObjectT, StructT, Type

# the P4Info list each extern kind is named in
_STORES = {"register": "registers", "counter": "counters", "direct_counter": "counters",
           "meter": "meters", "direct_meter": "meters", "action_profile": "action_profiles",
           "action_selector": "action_profiles"}
_KNOWN = set(_STORES) | {"Checksum16"}


class DeclarationChecker(CompilePass):
    """Constants, extern instances, value sets and block instances' constructor arguments."""

    USES = ("types", "exprs")

    def check_constant(self, e: A.Expr, scope: Scope, t: Type | None, loc) -> I.Expr:
        """`e` as a compile-time constant converted to `t` (a mismatch reported at `loc`)."""
        v = fold(self.exprs.check(e, scope, t))
        if v.const is None:
            raise P4CompileError(e.loc, "expected a compile-time constant")
        return fold(convert(v, t, loc))

    def check_const_decl(self, d: A.VarDecl, scope: Scope, loc) -> D.ConstDecl:
        """`const T name = init;`; a type mismatch is reported at `loc`."""
        t = self.types.resolve(d.type, scope)
        return D.ConstDecl(d.name, t, self.check_constant(d.init, scope, t, loc), d.loc)

    # -- extern objects ------------------------------------------------------------------
    def check_extern_instance(self, t: ObjectT, name: str, args: list[A.Arg], loc, scope: Scope,
                              annotations) -> D.ExternInstance:
        """An instance of extern `t` named `name` in the control plane."""
        ctors = [m for m in t.decl.methods if m.ret is None]
        ctor = next((c for c in ctors if len(c.params) == len(args)), None)
        if ctor is None:
            raise P4CompileError(loc, f"{t.name}: no constructor takes {len(args)} arguments")
        vals = []
        tscope = tvar_scope(scope, t.type_args)
        for p, a in bind_args(ctor.params, args, loc, t.name):
            pt = self.types.resolve(p.type, tscope)
            if not isinstance(pt, BitsT):  # enum constants (CounterType ...) stay as written
                vals.append(self.check_constant(a.value, scope, None, a.loc))
                continue
            v = fold(self.exprs.check(a.value, scope, pt))
            if v.const is None:
                raise P4CompileError(a.value.loc, "expected a compile-time constant")
            if isinstance(v.type, BitsT):  # a size written bit<W> of another width
                v = fold(cast_expr(v, pt, a.loc))
            vals.append(fold(convert(v, pt, a.loc)))
        kind = t.name
        store = _STORES.get(kind)
        if store is not None:
            names = self.env.declared.names.setdefault(store, [])
            check_unique_name(names, name, kind.replace("_", " "), loc)
        if kind == "register":
            vt = t.type_args.get("T")
            # as BMv2's back end (SimpleSwitchBackend), after serializable enums became bits
            if not (isinstance(vt, BitsT) or isinstance(vt, EnumT) and vt.underlying is not None):
                raise P4CompileError(loc, f"{name}: Only registers with bit or int types "
                                          f"are currently supported, not {vt}")
        elif kind == "action_selector" and vals[0].type.members[vals[0].const] == "random":
            raise unsupported(loc, "HashAlgorithm.random (BMv2 has no 'random' hash)")
        elif kind == "Checksum16":  # deprecated: p4c 1.2.5's BMv2 back end has no converter
            raise P4CompileError(loc, "Checksum16: unknown extern instance")
        elif kind not in _KNOWN:
            raise unsupported(loc, f"extern {kind}")
        if store is not None:
            names.append(name)
        return D.ExternInstance(name, t, tuple(vals), tuple(annotations), loc)

    def check_value_set(self, d: A.ValueSetDecl, name: str, scope: Scope) -> D.ValueSetDecl:
        t = self.types.resolve(d.type, scope)
        size = self.exprs.const_int(d.size, scope)
        if isinstance(t, StructT):
            fields = tuple((f, key_width(ft, d.loc), tuple(t.field_annotations.get(f, []))) for f, ft in t.fields)
        else:
            fields = (("", key_width(t, d.loc), ()),)
        return D.ValueSetDecl(name, t, size, fields, tuple(d.annotations), d.loc)

    # -- parser/control instances ----------------------------------------------------------
    def check_block_instance(self, decl, name: str, args: list[A.Arg], outer_scope: Scope,
                             t: ObjectT | None = None) -> D.BlockInstance:
        """An instance of parser/control `decl` whose names are prefixed `name`, its
        constructor arguments evaluated in `outer_scope`; its parameters' types may use
        the constructor parameters."""
        if decl.type_params:
            raise unsupported(decl.loc, f"generic {decl.name}")
        if t is None:
            t = ObjectT("parser" if isinstance(decl, A.ParserDecl) else "control", decl.name, decl)
        scope = Scope(self.global_scope)  # the parameters bound so far: later types and defaults see them
        bound = []
        for p, a in bind_args(decl.ctor_params, args, decl.loc, decl.name):
            pt = self.types.resolve(p.type, scope)
            if isinstance(pt, ObjectT) and pt.kind in ("control_type", "parser_type") and a is not None:
                arg = self._check_block_argument(p.name, pt, a.value, f"{name}.{p.name}", outer_scope)
                if arg.instance is not None:
                    scope.bind(p.name, arg.instance)
                bound.append(arg)
                continue
            v = self.check_constant(p.default, scope, pt, p.loc) if a is None else \
                self.check_constant(a.value, outer_scope, pt, p.loc)
            scope.bind(p.name, ConstB(pt, v.const))
            bound.append(D.CtorArgument(p.name, pt, v))
        params = tuple(D.BlockParam(p.name, p.direction, self.types.resolve(p.type, scope), p.loc, p.type.loc)
                       for p in decl.params)
        return D.BlockInstance(decl, t, name, tuple(bound), params)

    def _check_block_argument(self, pname: str, pt: Type, e: A.Expr, name: str,
                              outer_scope: Scope) -> D.CtorArgument:
        """The instance passed for a control/parser-typed constructor parameter
        (`Wrap(Impl()) w;`): p4c inlines it into the block that receives it."""
        if isinstance(e, A.Path):
            b = outer_scope.lookup(e.name)
            if isinstance(b, InstB) and b.block is not None:
                return D.CtorArgument(pname, pt, instance=b)
        if isinstance(e, A.Call) and isinstance(e.func, (A.Path, A.TypeExpr)):
            fname = e.func.name if isinstance(e.func, A.Path) else e.func.type.name
            b = outer_scope.lookup(fname)
            if isinstance(b, TypeB) and isinstance(b.ty, ObjectT) and b.ty.kind in ("control", "parser"):
                block = self.check_block_instance(b.ty.decl, name, e.args, outer_scope, b.ty)
                return D.CtorArgument(pname, pt, block=block)
        raise P4CompileError(e.loc, "expected a parser or control instance")
