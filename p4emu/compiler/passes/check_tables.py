"""The table checker (`TableChecker`, a pass of the `ProgramChecker`): a `table` declaration
-> a typed `p4emu.ir.table_decls.TableDecl`. Keys are typed and named as p4c names them,
with known match kinds (one lpm at most, as BMv2 wants); the actions list binds its
entries' directional arguments; `default_action` and the entries are constant action calls
of listed actions, entries' keysets typed against the keys (`table_entries.py`); `size`,
`support_timeout` and the implementation, counters and meters properties are resolved (an
extern made in one is checked as an extern instance, `check_declarations.py`). The names of
actions and instances are the resolution pass's bindings (`resolve_table_names.py`). The
emitter is `tables.py`."""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text, table_apply_in
from p4emu.compiler.checks import check_unique_name
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.check_table_entries import named_args_in_order
from p4emu.compiler.scope import ActionB, InstB, Scope
from p4emu.compiler.values import key_width
from p4emu.ir import declarations as D
from p4emu.ir import table_decls as T
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import ObjectT, StructT


class TableChecker(CompilePass):
    """Table declarations -> typed `TableDecl`s."""

    USES = ("types", "exprs", "arguments", "table_entries", "declarations")

    def check_table(self, d: A.TableDecl, name: str, scope: Scope) -> T.TableDecl:
        """Table `d`, whose control-plane name is `name`."""
        props = {}
        for prop in d.properties:
            if prop.name in props:
                raise P4CompileError(prop.loc, f"table {d.name}: duplicate property {prop.name}")
            props[prop.name] = prop
        if "actions" not in props:
            raise P4CompileError(d.loc, f"table {d.name} has no actions property")
        keys = tuple(self._check_key(ke, scope) for ke in (props["key"].value if "key" in props else []))
        if sum(1 for k in keys if k.match_kind == "lpm") > 1:
            raise P4CompileError(d.loc, f"table {d.name}: more than one lpm key field "
                                        "(not supported by BMv2)")
        actions = [self._check_listed_action(ar, scope) for ar in props["actions"].value]
        allowed = {a.name for a in actions}
        fields: dict = {}
        attached: list = []
        for pname, prop in props.items():
            if pname in ("key", "actions"):
                continue
            if pname == "size":
                fields["size"] = self.exprs.const_int(prop.value, scope)
            elif pname == "default_action":
                fields["default_action"] = self.table_entries.check_action_call(prop.value, scope, allowed, d)
                fields["const_default"] = prop.is_const
            elif pname == "entries":
                if not keys:
                    raise P4CompileError(prop.loc, f"table {d.name}: entries need a key")
                defaultonly = {a.name for a in actions
                               if A.find_annotation(a.annotations, "defaultonly") is not None}
                fields["entries"] = self.table_entries.check_entries(prop.value, keys, scope, allowed, d, defaultonly)
                fields["is_const"] = prop.is_const
                self.table_entries.check_priorities(prop, props, keys, scope, d)
            elif pname == "implementation":
                attached.append(self._check_implementation(prop, scope, name))
            elif pname in ("counters", "meters"):
                kind = "direct_counter" if pname == "counters" else "direct_meter"
                attached.append(self._check_direct(prop, scope, kind, name))
            elif pname == "support_timeout":
                fields["idle_timeout"] = bool(self.table_entries.table_const(prop.value, scope).const)
            elif pname in ("largest_priority_wins", "priority_delta"):
                pass  # only steer `priority = n:` numbering (check_priorities)
            elif not isinstance(prop.value, A.ActionRefSyntax):
                attached.append(self.exprs.check(prop.value, scope))
        if "default_action" not in fields:
            fields["default_action"] = self._implicit_default(actions, allowed, scope, d)
        check_unique_name([t.name for t in self.env.declared.tables], name, "table", d.loc)
        return T.TableDecl(name, keys, tuple(actions), attached=tuple(attached),
                           annotations=tuple(d.annotations), loc=d.loc, **fields)

    def _check_key(self, ke, scope) -> T.KeyElement:
        v = self.exprs.check(ke.expr, scope)
        w = key_width(v.type, ke.loc)
        anno = A.find_annotation(ke.annotations, "name")
        kname = anno.string() if anno is not None else key_name(ke.expr)
        if kname is None:
            raise P4CompileError(ke.loc, "Complex key expression requires a @name annotation")
        self.env.names.match_kind(ke)  # resolved before checking (`resolve_names`)
        return T.KeyElement(kname, ke.match_kind, v, w, tuple(ke.annotations), ke.loc)

    def _check_listed_action(self, ar: A.ActionRefSyntax, scope, implicit: ActionB | None = None,
                             annotations=None) -> T.ListedAction:
        """An entry of the actions list: its directional arguments bound (the action data
        come from the control plane). `implicit`: the action p4c adds, looked up by the
        checker (the pass never saw its reference)."""
        b = implicit or self.table_entries.table_name_binding(ar)
        if not isinstance(b, ActionB):
            raise P4CompileError(ar.loc, f"{ar.name}: not an action")
        decl = b.decl
        dir_params = [p for p in decl.params if p.direction != ""]
        ar_args = named_args_in_order(dir_params, ar.args, ar.loc, decl.name)
        if len(ar_args) != len(dir_params):
            raise P4CompileError(ar.loc, f"{decl.name}: expected {len(dir_params)} directional arguments in the actions list, got {len(ar.args)}")
        for a in ar_args:
            call = table_apply_in(a.value) if a.value is not None else None
            if call is not None:  # p4c: the bound argument is evaluated on every hit
                raise P4CompileError(call.loc, f"{expr_text(call.func)}(): table invocation in action "
                                               "argument")
        pairs = list(zip(dir_params, ar_args, strict=True))
        args = self.arguments.check_arguments(pairs, {}, scope, ar.loc, decl.name)
        annos = ar.annotations if annotations is None else annotations
        return T.ListedAction(b.full_name, b, args, tuple(annos), ar.loc, implicit is not None)

    def _implicit_default(self, actions: list, allowed: set, scope, d) -> T.ActionCall | None:
        """p4c makes NoAction the default when none is given, adding it to the actions."""
        b = self.global_scope.lookup("NoAction")
        if "NoAction" not in allowed:
            if not isinstance(b, ActionB):
                return None
            actions.append(self._check_listed_action(
                A.ActionRefSyntax(d.loc, "NoAction", [], []), scope, implicit=b,
                annotations=[A.Annotation("defaultonly", [], d.loc)]))
        return T.ActionCall("NoAction", b, (), d.loc)

    def _check_implementation(self, prop, scope, table_name) -> T.Attached:
        v = prop.value
        if isinstance(v, A.Path):
            b = self.table_entries.table_name_binding(v)
            if not isinstance(b, InstB) or b.ty.name not in ("action_profile", "action_selector"):
                raise P4CompileError(v.loc, f"{v.name}: not an action profile or selector")
            return T.Attached("implementation", b.full_name)
        if isinstance(v, A.Call) and isinstance(v.func, A.TypeExpr):
            t = self.types.resolve(v.func.type, scope)
            if isinstance(t, ObjectT) and t.name in ("action_profile", "action_selector"):
                return T.Attached("implementation", *self._check_inline(t, v, prop, scope, table_name))
        raise P4CompileError(prop.loc, "implementation must be an action_profile or action_selector")

    def _check_direct(self, prop, scope, kind, table_name) -> T.Attached:
        v = prop.value
        if isinstance(v, A.Call) and isinstance(v.func, A.TypeExpr):
            # `counters = direct_counter(CounterType.packets);`: an inline instance, named
            # like an inline action profile
            t = self.types.resolve(v.func.type, scope)
            if not isinstance(t, ObjectT) or t.name != kind:
                raise P4CompileError(prop.loc, f"{prop.name} must be a {kind}")
            return T.Attached(prop.name, *self._check_inline(t, v, prop, scope, table_name))
        b = self.table_entries.table_name_binding(v) if isinstance(v, A.Path) else None
        if not isinstance(b, InstB) or b.ty.name != kind:
            raise P4CompileError(prop.loc, f"{prop.name} must name a {kind} instance")
        return T.Attached(prop.name, b.full_name)

    def _check_inline(self, t: ObjectT, v: A.Call, prop, scope, table_name) -> tuple[str, D.ExternInstance]:
        """(name, instance) of an extern instantiated in a table property."""
        name = _inline_name(prop, table_name)
        return name, self.declarations.check_extern_instance(t, name, v.args, prop.loc, scope, prop.annotations)


def _inline_name(prop, table_name: str) -> str:
    """p4c names an instance made in a property by the property's @name, else the table's."""
    anno = A.find_annotation(prop.annotations, "name")
    return anno.string().lstrip(".") if anno is not None and anno.string() else table_name


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
