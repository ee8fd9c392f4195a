"""Instances declared in blocks: sub-parsers and sub-controls (also those made for a
direct type invocation `Ctrl.apply(...)`) and v1model extern objects (mixin of
`ProgramGen`)."""

from __future__ import annotations

from p4emu.compiler.analysis import substitutable
from p4emu.compiler.blocks import BlockCtx, full_name, key_width
from p4emu.compiler.checks import check_unique_name
from p4emu.compiler.scope import InstB, Scope
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import BitsT, BoolT, EnumT, ObjectT


class InstanceGen:
    """`self` is the `ProgramGen`."""

    def gen_instance(self, d: A.InstanceDecl, ctx: BlockCtx, scope: Scope) -> None:
        t = self.resolve_type(d.type, scope)
        name = full_name(ctx.name, d)
        if isinstance(t, ObjectT) and t.kind in ("control", "parser"):
            sub = self.gen_block(t.decl, name, d.args, scope)
            direct = substitutable(getattr(ctx, "decl_ast", None), d.name)
            scope.declare(d.name, InstB(t.kind, t, name, sub.apply_py, d, {"ctx": sub, "direct": direct}), d.loc)
            return
        if isinstance(t, ObjectT) and t.kind == "extern":
            py = self.extern_instance(t, name, d.args, d, scope, d.annotations)
            scope.declare(d.name, InstB("extern", t, name, py, d), d.loc)
            return
        raise P4CompileError(d.loc, f"cannot instantiate {t}")

    def direct_instance(self, t: ObjectT, fn, loc) -> InstB:
        """The instance behind a direct type invocation `Ctrl.apply(...)`.

        p4c (InstantiateDirectCalls) declares a fresh `@name("Ctrl") Ctrl() Ctrl_inst;` in
        the enclosing block for each such call, so each call site gets its own tables and
        externs, named under `<block>.Ctrl` (a second call here gets a `_1` suffix).
        """
        owner = getattr(fn, "owner", None)
        if owner is None or getattr(fn, "kind", "") in ("action", "function"):
            raise P4CompileError(loc, f"{t.name}.apply: direct invocation is only allowed in a control or parser")
        if t.decl.ctor_params:
            raise P4CompileError(loc, f"{t.name}: direct invocation of a block with constructor parameters")
        seen = owner.direct_names
        base = t.name
        name, k = base, 0
        while name in seen:
            k += 1
            name = f"{base}_{k}"
        seen.add(name)
        full = f"{owner.name}.{name}" if owner.name else name
        saved = self.in_parser
        sub = self.gen_block(t.decl, full, [], self.global_scope)
        self.in_parser = saved
        return InstB(t.kind, t, full, sub.apply_py, None, {"ctx": sub, "direct": True})

    def extern_instance(self, t: ObjectT, name: str, args: list[A.Arg], d, scope: Scope, annotations) -> str:
        decl = t.decl
        ctors = [m for m in decl.methods if m.ret is None]
        ctor = next((c for c in ctors if len(c.params) == len(args)), None)
        if ctor is None:
            raise P4CompileError(d.loc, f"{t.name}: no constructor takes {len(args)} arguments")
        vals = []
        tscope = self.tvar_scope(scope, t.type_args)
        for p, a in self.bind_args(ctor.params, args, d.loc, t.name):
            pt = self.resolve_type(p.type, tscope)
            v = self.const_value(a.value, scope, pt if isinstance(pt, BitsT) else None)
            if isinstance(pt, BitsT):
                v = self.coerce(self.cast(v, pt, a.loc) if isinstance(v.ty, BitsT) else v, pt, a.loc)
            vals.append(v)
        uid = self.next_id()
        kind = t.name
        store = {"register": "registers", "counter": "counters", "direct_counter": "counters",
                 "meter": "meters", "direct_meter": "meters", "action_profile": "action_profiles",
                 "action_selector": "action_profiles"}.get(kind)
        if store is not None:
            check_unique_name(self.objects[store], name, kind.replace("_", " "), d.loc)
        if kind == "register":
            vt = t.type_args.get("T")
            # as BMv2's back end (SimpleSwitchBackend), after serializable enums became bits
            if not (isinstance(vt, BitsT) or isinstance(vt, EnumT) and vt.underlying is not None):
                raise P4CompileError(d.loc, f"{name}: Only registers with bit or int types "
                                            f"are currently supported, not {vt}")
            self.objects["registers"].append(dict(
                name=name, size=vals[0].const, bitwidth=key_width(vt, d.loc), annotations=annotations,
                signed=isinstance(vt, BitsT) and vt.signed, is_bool=isinstance(vt, BoolT)))
            py = f"REG_{uid}"
            self.bindings[py] = ("register", name)
        elif kind in ("counter", "direct_counter"):
            unit = (vals[-1].ty.members[vals[-1].const])
            size = vals[0].const if kind == "counter" else 0
            self.objects["counters"].append(dict(name=name, size=size, unit=unit, direct=kind == "direct_counter", annotations=annotations))
            py = f"CNT_{uid}"
            if kind == "counter":
                self.bindings[py] = ("counter", name)
        elif kind in ("meter", "direct_meter"):
            unit = (vals[-1].ty.members[vals[-1].const])
            size = vals[0].const if kind == "meter" else 0
            self.objects["meters"].append(dict(name=name, size=size, unit=unit, direct=kind == "direct_meter",
                                               annotations=annotations, loc=d.loc))
            py = f"MTR_{uid}"
            if kind == "meter":
                self.bindings[py] = ("meter", name)
        elif kind == "action_profile":
            self.objects["action_profiles"].append(dict(name=name, size=vals[0].const, selector=None, annotations=annotations))
            py = f"AP_{uid}"
        elif kind == "action_selector":
            algo = vals[0].ty.members[vals[0].const]
            if algo == "random":
                raise unsupported(d.loc, "HashAlgorithm.random (BMv2 has no 'random' hash)")
            self.objects["action_profiles"].append(dict(name=name, size=vals[1].const, selector=algo, annotations=annotations))
            py = f"AP_{uid}"
        elif kind == "Checksum16":  # deprecated: p4c 1.2.5's BMv2 back end has no converter
            raise P4CompileError(d.loc, "Checksum16: unknown extern instance")
        else:
            raise unsupported(d.loc, f"extern {kind}")
        return py
