"""Constant action calls and entries of tables in the type checker (`TableEntryChecker`, a
pass of the `ProgramChecker`, used by `check_tables.py`): `default_action` and each entry's
action are listed actions with constant action data; each entry's keyset is typed against
its key element and becomes a match value (`p4emu.runtime.match`); `priority = n:`
numbering gets p4c's verdicts (`checks.check_entry_priorities`)."""

from __future__ import annotations

from p4emu.compiler.checks import check_entry_key, check_entry_priorities
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import convert
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.passes.resolve_table_names import LocalRef
from p4emu.compiler.scope import ActionB, Binding, Scope
from p4emu.ir import expressions as I
from p4emu.ir import table_decls as T
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import BitsT
from p4emu.runtime import match as M


class TableEntryChecker(CompilePass):
    """Tables' constant action calls and entries, and the names in a table."""

    USES = ("types", "exprs")

    def check_action_call(self, ar: A.ActionRefSyntax, scope, allowed: set[str], d) -> T.ActionCall:
        """`default_action = a(...)` or an entry's action: a listed action whose action
        data are constants (the directional arguments, if written, are the listed ones)."""
        b = self.table_name_binding(ar)
        if not isinstance(b, ActionB):
            raise P4CompileError(ar.loc, f"{ar.name}: not an action")
        if b.full_name not in allowed:
            raise P4CompileError(ar.loc, f"{ar.name}: not in the actions of table {d.name}")
        data = [p for p in b.decl.params if p.direction == ""]
        given = named_args_in_order(b.decl.params, ar.args, ar.loc, ar.name)
        given = given[len(b.decl.params) - len(data):] if len(given) == len(b.decl.params) else given
        if len(given) != len(data):
            raise P4CompileError(ar.loc, f"{ar.name}: expected {len(data)} action data arguments, got {len(given)}")
        vals = []
        for p, a in zip(data, given, strict=True):
            t = self.types.resolve(p.type, getattr(b, "scope", self.global_scope))
            c = convert(self.table_const(a.value, scope, t), t, a.loc).const
            if isinstance(t, BitsT):
                c &= t.mask
            vals.append(int(c))
        return T.ActionCall(b.full_name, b, tuple(vals), ar.loc)

    def table_name_binding(self, node: A.ActionRefSyntax | A.Path) -> Binding | None:
        """What the action or instance name at `node` in a table denotes: the binding
        the declaration the resolution pass bound it to has (`resolve_table_names.py`), in
        the control instance being checked for one of the control's own; None for none."""
        ref = self.env.names.table_names[id(node)]
        if ref is None:
            return None
        if isinstance(ref, LocalRef):
            return self.walk.frame.bindings.get(id(ref.decl))
        return self.env.decl_bindings.get(id(ref))

    def check_priorities(self, prop, props, keys: tuple[T.KeyElement, ...], scope, d) -> None:
        """The `priority = n:` numbering only decides verdicts: BMv2 never sees it."""
        largest = props.get("largest_priority_wins")
        delta = props.get("priority_delta")
        check_entry_priorities(
            [self.exprs.const_int(e.priority, scope) if e.priority is not None else None
             for e in prop.value],
            [k.match_kind for k in keys], prop.is_const,
            bool(self.table_const(largest.value, scope).const) if largest else True,
            self.exprs.const_int(delta.value, scope) if delta else 1,
            d.name, [e.loc for e in prop.value] + [d.loc])

    def check_entries(self, entries: list[A.EntrySyntax], keys: tuple[T.KeyElement, ...], scope,
                      allowed: set[str], d, defaultonly: set[str]) -> tuple[T.Entry, ...]:
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
            action = self.check_action_call(ent.action, scope, allowed, d)
            if action.name in defaultonly:
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
            out.append(T.Entry(match, action, prio, ent.loc))
        return tuple(out)

    def _entry_match(self, k: A.Expr, key: T.KeyElement, scope):
        kind = key.match_kind
        t = key.value.type
        w = key.bitwidth
        mask_all = (1 << w) - 1
        if isinstance(k, (A.DefaultKey, A.DontCare)):
            if kind == "exact":
                raise P4CompileError(k.loc, "exact key cannot be a don't-care")
            return None
        check_entry_key(k, t, kind)

        def cv(e) -> int:
            v = self.table_const(e, scope, t if isinstance(t, BitsT) else None)
            return int(convert(v, t, e.loc).const) & mask_all

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

    def table_const(self, e: A.Expr, scope: Scope, want=None) -> I.Expr:
        """`e` folded to a compile-time constant."""
        v = fold(self.exprs.check(e, scope, want))
        if v.const is None:
            raise P4CompileError(e.loc, "expected a compile-time constant")
        return v


def named_args_in_order(params: list[A.Param], args: list[A.Arg], loc, what: str) -> list[A.Arg]:
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
