"""Tables: keys, action lists, default actions, const entries, implementations and the
generated apply/dispatch functions (mixin of `ProgramGen`)."""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text, table_apply_in
from p4emu.compiler.blocks import BlockCtx, full_name
from p4emu.compiler.checks import check_entry_key, check_entry_priorities, check_unique_name
from p4emu.compiler.scope import ActionB, InstB, Scope, py_ident
from p4emu.compiler.values import key_width, unsigned_py
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import BitsT, BoolT, EnumT, ObjectT, StructT
from p4emu.runtime import match as M


class TableGen:
    # -- tables ------------------------------------------------------------------------
    def gen_table(self, d: A.TableDecl, ctx: BlockCtx, scope: Scope) -> None:
        name = full_name(ctx.name, d)
        uid = self.next_id()
        props = {}
        for prop in d.properties:
            if prop.name in props:
                raise P4CompileError(prop.loc, f"table {d.name}: duplicate property {prop.name}")
            props[prop.name] = prop
        if "actions" not in props:
            raise P4CompileError(d.loc, f"table {d.name} has no actions property")
        fn = self.new_fn(ctx)
        keys = []
        key_py = []
        for ke in (props["key"].value if "key" in props else []):
            v = self.expr(ke.expr, scope, fn)
            w = key_width(v.ty, ke.loc)
            if isinstance(v.ty, EnumT) and v.ty.underlying is not None:
                self.out.p4rt_enums[v.ty.name] = v.ty
            anno = A.find_annotation(ke.annotations, "name")
            kname = anno.string() if anno is not None else key_name(ke.expr)
            if kname is None:
                raise P4CompileError(ke.loc, "Complex key expression requires a @name annotation")
            if ke.match_kind not in self.env.match_kinds:
                raise P4CompileError(ke.loc, f"{ke.match_kind}: unknown match kind")
            keys.append(dict(name=kname, match_kind=ke.match_kind, bitwidth=w, annotations=ke.annotations, ty=v.ty))
            key_py.append(unsigned_py(v))
        if sum(1 for k in keys if k["match_kind"] == "lpm") > 1:
            raise P4CompileError(d.loc, f"table {d.name}: more than one lpm key field "
                                        "(not supported by BMv2)")
        refs = []
        dispatch = []
        for ar in (props["actions"].value if "actions" in props else []):
            b = (self.global_scope if ar.is_global else scope).lookup(ar.name)
            if not isinstance(b, ActionB):
                raise P4CompileError(ar.loc, f"{ar.name}: not an action")
            self.ensure_action(b)
            w = self._action_wrapper(b, ar, ctx, scope, uid)
            refs.append(dict(action=b.full_name, annotations=ar.annotations))
            dispatch.append((b.full_name, w))
        action_names = {r["action"] for r in refs}
        info = dict(name=name, keys=keys, actions=refs, annotations=d.annotations, size=1024,
                    default=None, default_args=(), const_default=False, entries=(), is_const=False,
                    implementation=None, direct_counter=None, direct_meter=None, idle_timeout=False,
                    loc=d.loc)
        for pname, prop in props.items():
            if pname in ("key", "actions"):
                continue
            if pname == "size":
                info["size"] = self.const_int(prop.value, scope)
            elif pname == "default_action":
                b, args = self._const_action_call(prop.value, scope, action_names, d)
                info["default"], info["default_args"] = b.full_name, args
                info["const_default"] = prop.is_const
            elif pname == "entries":
                if not keys:
                    raise P4CompileError(prop.loc, f"table {d.name}: entries need a key")
                defaultonly = {r["action"] for r in refs
                               if A.find_annotation(r["annotations"], "defaultonly") is not None}
                info["entries"] = self._const_entries(prop.value, keys, scope, action_names, d,
                                                      defaultonly)
                info["is_const"] = prop.is_const
                self._check_priorities(prop, props, keys, scope, d)
            elif pname == "implementation":
                info["implementation"] = self._table_impl(prop, ctx, scope, name)
            elif pname == "counters":
                info["direct_counter"] = self._direct_ref(prop, scope, "direct_counter", name)
            elif pname == "meters":
                info["direct_meter"] = self._direct_ref(prop, scope, "direct_meter", name)
            elif pname == "support_timeout":
                v = self.const_value(prop.value, scope)
                info["idle_timeout"] = bool(v.const)
            elif pname in ("largest_priority_wins", "priority_delta"):
                pass  # only steer `priority = n:` numbering (_check_priorities)
            else:
                self.expr(prop.value, scope, fn) if not isinstance(prop.value, A.ActionRefSyntax) else None
        if info["default"] is None:
            info["default"] = "NoAction" if "NoAction" in action_names else None
            if info["default"] is None:
                # p4c adds NoAction as the default when none is given
                b = self.global_scope.lookup("NoAction")
                if isinstance(b, ActionB):
                    self.ensure_action(b)
                    w = self._action_wrapper(b, A.ActionRefSyntax(d.loc, "NoAction", [], []), ctx, scope, uid)
                    refs.append(dict(action="NoAction", annotations=[A.Annotation("defaultonly", [], d.loc)]))
                    dispatch.append(("NoAction", w))
                    info["default"] = "NoAction"
        check_unique_name(self.out.objects["tables"], name, "table", d.loc)
        self.out.objects["tables"].append(info)
        py = f"TA_{uid}"
        tbl = f"TBL_{uid}"
        disp = f"TD_{uid}"
        self.out.bindings[tbl] = ("table", name)
        self.out.dispatch_tables.append((disp, dispatch))
        fn.emit(f"r = {tbl}.lookup(({''.join(k + ', ' for k in key_py)}), PS.length)")
        if info["direct_meter"] is not None:
            fn.emit("PS.meter_color = r.meter_color")
            writer = self.out.direct_meter_writers.get(info["direct_meter"])
            if writer is not None:
                fn.emit(f"if r.meter_color is not None: {writer}({ctx.sig}, r.meter_color)")
        fn.emit(f"f = {disp}.get(r.action_id)")
        fn.emit(f"if f is not None: f({ctx.sig}, r.args)")
        fn.emit("return r")
        self.out.code.append(f"def {py}({ctx.sig}):")
        self.out.code += fn.body()
        scope.bind(d.name, InstB("table", ObjectT("table", d.name, d), name, py, d))

    def _action_wrapper(self, b: ActionB, ar: A.ActionRefSyntax, ctx: BlockCtx, scope, uid) -> str:
        decl = b.decl
        dir_params = [p for p in decl.params if p.direction != ""]
        ar_args = _named_args_in_order(dir_params, ar.args, ar.loc, decl.name)
        if len(ar_args) != len(dir_params):
            raise P4CompileError(ar.loc, f"{decl.name}: expected {len(dir_params)} directional arguments in the actions list, got {len(ar.args)}")
        for a in ar_args:
            call = table_apply_in(a.value) if a.value is not None else None
            if call is not None:  # p4c: the bound argument is evaluated on every hit
                raise P4CompileError(call.loc, f"{expr_text(call.func)}(): table invocation in action "
                                               "argument")
        wname = f"W_{uid}_{self.next_id()}"
        fn = self.new_fn(ctx)
        data = b.data_params
        names = [py for _, _, py in data]
        if names:
            fn.emit(f"{', '.join(names)}, = args")
        for _p, t, py in data:
            if isinstance(t, BitsT) and t.signed:
                h = 1 << (t.width - 1)
                fn.emit(f"{py} = ({py} ^ {h}) - {h}")
            elif isinstance(t, BoolT):
                fn.emit(f"{py} = {py} != 0")
        pairs = list(zip(dir_params, ar_args, strict=True))
        args = self.check_arguments(pairs, {}, scope, ar.loc, decl.name)
        argmap = {id(p): v for p, v in zip(dir_params, self.emit_arguments(args, fn), strict=True)}
        call_args = []
        outs = []
        for p in decl.params:
            if p.direction == "":
                call_args.append(f"a_{py_ident(p.name)}")
            else:
                v = argmap[id(p)]
                call_args.append(v.py)
                if p.direction in ("out", "inout"):
                    outs.append((v, v.ty))
        prefix = [ctx.sig] if b.owner is not None else []
        self.emit_call_with_outs(f"{b.py}({', '.join(prefix + call_args)})", outs, False, fn, ar.loc,
                                 may_exit=True)
        self.out.code.append(f"def {wname}({ctx.sig}, args):")
        self.out.code += fn.body()
        return wname

    def _const_action_call(self, ar: A.ActionRefSyntax, scope, allowed, d) -> tuple[ActionB, tuple[int, ...]]:
        b = (self.global_scope if ar.is_global else scope).lookup(ar.name)
        if not isinstance(b, ActionB):
            raise P4CompileError(ar.loc, f"{ar.name}: not an action")
        if b.full_name not in allowed:
            raise P4CompileError(ar.loc, f"{ar.name}: not in the actions of table {d.name}")
        data = [p for p in b.decl.params if p.direction == ""]
        given = _named_args_in_order(b.decl.params, ar.args, ar.loc, ar.name)
        given = given[len(b.decl.params) - len(data):] if len(given) == len(b.decl.params) else given
        if len(given) != len(data):
            raise P4CompileError(ar.loc, f"{ar.name}: expected {len(data)} action data arguments, got {len(given)}")
        vals = []
        for p, a in zip(data, given, strict=True):
            t = self.resolve_type(p.type, getattr(b, "scope", self.global_scope))
            v = self.coerce(self.const_value(a.value, scope, t), t, a.loc)
            c = v.const
            if isinstance(t, BitsT):
                c &= t.mask
            vals.append(int(c))
        return b, tuple(vals)

    def _check_priorities(self, prop, props, keys, scope, d) -> None:
        """The `priority = n:` numbering only decides verdicts: BMv2 never sees it."""
        largest = props.get("largest_priority_wins")
        delta = props.get("priority_delta")
        check_entry_priorities(
            [self.const_int(e.priority, scope) if e.priority is not None else None
             for e in prop.value],
            [k["match_kind"] for k in keys], prop.is_const,
            bool(self.const_value(largest.value, scope).const) if largest else True,
            self.const_int(delta.value, scope) if delta else 1,
            d.name, [e.loc for e in prop.value] + [d.loc])

    def _const_entries(self, entries: list[A.EntrySyntax], keys, scope, allowed, d,
                       defaultonly: set[str]) -> list:
        out = []
        for i, ent in enumerate(entries):
            ks = ent.keys
            if len(ks) == 1 and isinstance(ks[0], A.ListExpr) and len(ks[0].items) == len(keys):
                ks = ks[0].items  # `{a, b}` or, for one key, `{a}` (p4c: a list of keysets)
            if not keys and len(ks) == 1 and isinstance(ks[0], (A.DefaultKey, A.DontCare)):
                ks = []
            if len(ks) != len(keys):
                raise P4CompileError(ent.loc, f"entry has {len(ks)} keys, table {d.name} has {len(keys)}")
            match = tuple(self._entry_match(k, key, scope) for k, key in zip(ks, keys, strict=True))
            b, args = self._const_action_call(ent.action, scope, allowed, d)
            if b.full_name in defaultonly:
                raise P4CompileError(ent.action.loc, f"{ent.action.name}: Action marked with "
                                                     "defaultonly used in table entries")
            # p4c's BMv2 back end (bmv2/common/control.h, convertTableEntries) writes the
            # @priority annotation or else the 1-based position; a `priority = n:` value only
            # feeds the front end's EntryPriorities pass and never reaches the JSON, so BMv2
            # (smaller wins) lets the first entry listed win
            prio = i + 1
            anno = A.find_annotation(ent.annotations, "priority")
            if anno is not None and anno.integer() is not None:
                prio = anno.integer()
            out.append(dict(match=match, action=b.full_name, args=args, priority=prio))
        return out

    def _entry_match(self, k: A.Expr, key: dict, scope):
        kind = key["match_kind"]
        t = key["ty"]
        w = key["bitwidth"]
        mask_all = (1 << w) - 1
        if isinstance(k, (A.DefaultKey, A.DontCare)):
            if kind == "exact":
                raise P4CompileError(k.loc, "exact key cannot be a don't-care")
            return None
        check_entry_key(k, t, kind)

        def cv(e) -> int:
            v = self.coerce(self.const_value(e, scope, t if isinstance(t, BitsT) else None), t, e.loc)
            c = v.const
            return int(c) & mask_all

        if isinstance(k, A.Mask):
            value, mask = cv(k.value), cv(k.mask)
            if kind == "lpm":
                plen = bin(mask).count("1")
                if mask != (((1 << plen) - 1) << (w - plen)):
                    raise P4CompileError(k.loc, "lpm mask is not a prefix")
                return M.Lpm(value & mask, plen)
            if kind != "ternary":
                raise P4CompileError(k.loc, f"&&& not allowed for a {kind} key")
            return M.Ternary(value & mask, mask)
        if isinstance(k, A.Range):
            if kind != "range":
                raise P4CompileError(k.loc, f".. not allowed for a {kind} key")
            return M.Range(cv(k.low), cv(k.high))
        value = cv(k)
        if kind == "exact":
            return M.Exact(value)
        if kind == "ternary":
            return M.Ternary(value, mask_all)
        if kind == "lpm":
            return M.Lpm(value, w)
        if kind == "range":
            return M.Range(value, value)
        if kind == "optional":
            return M.Optional(value)
        raise unsupported(k.loc, f"const entries for {kind} keys")

    def _table_impl(self, prop, ctx, scope, table_name) -> str:
        v = prop.value
        if isinstance(v, A.Path):
            b = scope.lookup(v.name)
            if not isinstance(b, InstB) or b.ty.name not in ("action_profile", "action_selector"):
                raise P4CompileError(v.loc, f"{v.name}: not an action profile or selector")
            self._link(b.full_name, table_name, "action_profiles")
            return b.full_name
        if isinstance(v, A.Call) and isinstance(v.func, A.TypeExpr):
            t = self.resolve_type(v.func.type, scope)
            if isinstance(t, ObjectT) and t.name in ("action_profile", "action_selector"):
                # p4c names an inline instance by the property's @name (else the table's)
                anno = A.find_annotation(prop.annotations, "name")
                name = anno.string().lstrip(".") if anno is not None and anno.string() else table_name
                self.extern_instance(t, name, v.args, prop, scope, prop.annotations)
                self._link(name, table_name, "action_profiles")
                return name
        raise P4CompileError(prop.loc, "implementation must be an action_profile or action_selector")

    def _direct_ref(self, prop, scope, kind, table_name) -> str:
        v = prop.value
        if isinstance(v, A.Call) and isinstance(v.func, A.TypeExpr):
            # `counters = direct_counter(CounterType.packets);`: an inline instance, named
            # like an inline action profile (the property's @name, else the table's)
            t = self.resolve_type(v.func.type, scope)
            if not isinstance(t, ObjectT) or t.name != kind:
                raise P4CompileError(prop.loc, f"{prop.name} must be a {kind}")
            anno = A.find_annotation(prop.annotations, "name")
            name = anno.string().lstrip(".") if anno is not None and anno.string() else table_name
            self.extern_instance(t, name, v.args, prop, scope, prop.annotations)
            return name
        b = scope.lookup(v.name) if isinstance(v, A.Path) else None
        if not isinstance(b, InstB) or b.ty.name != kind:
            raise P4CompileError(prop.loc, f"{prop.name} must name a {kind} instance")
        return b.full_name

    def _link(self, obj_name: str, table_name: str, kind: str) -> None:
        self.out.links.setdefault(obj_name, []).append(table_name)


def _const_text(e: A.IntLit) -> str:
    if e.base == 16:
        return "0x" + format(e.value, "x")
    if e.base == 2:
        return "0b" + format(e.value, "b")
    if e.base == 8:
        return "0o" + format(e.value, "o")
    return str(e.value)


def key_name(e: A.Expr) -> str | None:
    """p4c's name of a table key expression (TableKeyNames); None: needs a @name."""
    if isinstance(e, A.Path):
        return e.name
    if isinstance(e, A.Member):
        base = key_name(e.expr)
        if base is None:
            return None
        name = e.name
        t = e.expr.ty
        if isinstance(t, StructT):
            anno = A.find_annotation(t.field_annotations.get(e.name, []), "name")
            if anno is not None and anno.string():
                name = anno.string()
        return f"{base}.{name}"
    if isinstance(e, A.Index):  # any nameable index: `h.h[h.i.index].a`
        base, index = key_name(e.expr), key_name(e.index)
        return None if base is None or index is None else f"{base}[{index}]"
    if isinstance(e, A.Slice):
        base = key_name(e.expr)
        if base is None or not isinstance(e.hi, A.IntLit) or not isinstance(e.lo, A.IntLit):
            return None
        return f"{base}[{e.hi.value}:{e.lo.value}]"
    if isinstance(e, A.Call) and isinstance(e.func, A.Member) and e.func.name == "isValid":
        base = key_name(e.func.expr)
        return None if base is None else f"{base}.$valid$"
    if isinstance(e, A.Binary) and e.op == "&":
        left, right = key_name(e.left), key_name(e.right)
        return None if left is None or right is None else f"{left} & {right}"
    if isinstance(e, A.IntLit):
        return _const_text(e)
    return None


def _named_args_in_order(params: list[A.Param], args: list[A.Arg], loc, what: str) -> list[A.Arg]:
    """`args` in parameter order: named arguments (`a(v = 1, k = 2)`) are reordered to
    the parameters they name, restricted to those of `params` that were given."""
    if not args or args[0].name is None:
        if any(a.name is not None for a in args):
            raise P4CompileError(loc, f"{what}: cannot mix named and positional arguments")
        return list(args)
    if any(a.name is None for a in args):
        raise P4CompileError(loc, f"{what}: cannot mix named and positional arguments")
    by_name = {a.name: a for a in args}
    names = {p.name for p in params}
    if set(by_name) - names:
        raise P4CompileError(loc, f"{what}: no parameter named {sorted(set(by_name) - names)[0]}")
    return [by_name[p.name] for p in params if p.name in by_name]
