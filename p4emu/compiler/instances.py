"""Instances declared in blocks (mixin of `ProgramGen`): sub-parsers and sub-controls,
also those made for a direct type invocation `Ctrl.apply(...)`, and extern objects;
their constructor arguments are checked by `passes/check_declarations.py`, the
instances emitted by `blocks.py` and `extern_objects.py`."""

from __future__ import annotations

from p4emu.compiler.analysis import substitutable
from p4emu.compiler.blocks import BlockCtx, full_name
from p4emu.compiler.scope import InstB, Scope
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import ObjectT


class InstanceGen:
    """`self` is the `ProgramGen`."""

    def gen_instance(self, d: A.InstanceDecl, ctx: BlockCtx, scope: Scope) -> None:
        t = self.checker.resolve_type(d.type, scope)
        name = full_name(ctx.name, d)
        if isinstance(t, ObjectT) and t.kind in ("control", "parser"):
            sub = self.gen_block(t.decl, name, d.args, scope)
            direct = substitutable(getattr(ctx, "decl_ast", None), d.name)
            scope.declare(d.name, InstB(t.kind, t, name, sub.apply_py, d, {"ctx": sub, "direct": direct}), d.loc)
            return
        if isinstance(t, ObjectT) and t.kind == "extern":
            py = self.emit_extern_instance(self.checker.check_extern_instance(t, name, d.args, d.loc, scope, d.annotations))
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
        saved = self.walk.in_parser
        sub = self.gen_block(t.decl, full, [], self.global_scope)
        self.walk.in_parser = saved
        return InstB(t.kind, t, full, sub.apply_py, None, {"ctx": sub, "direct": True})
