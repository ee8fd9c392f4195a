"""Parser states: statements, transitions and select expressions with BMv2's keyset
rules (mixin of `ProgramGen`)."""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text
from p4emu.compiler.blocks import BlockCtx
from p4emu.compiler.checks import check_parser_terminates
from p4emu.compiler.scope import InstB, Scope, py_ident
from p4emu.compiler.values import V, unsigned_py
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import InfIntT

# built-in methods p4c folds to constants, so they may appear in select keysets
SIZE_METHODS = ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes")


class ParserGen:
    # -- parser states -----------------------------------------------------------------
    def gen_states(self, decl: A.ParserDecl, ctx: BlockCtx, scope: Scope) -> str:
        names: dict[str, str] = {}
        for st in decl.states:
            if st.name in ("accept", "reject"):
                raise P4CompileError(st.loc, f"parser state {st.name} is built in and cannot be implemented")
            if st.name in names:
                raise P4CompileError(st.loc, f"{st.name}: duplicate parser state")
            names[st.name] = f"S_{self.next_id()}_{py_ident(st.name)}"
        if "start" not in names:
            raise P4CompileError(decl.loc, f"parser {decl.name} has no start state")
        check_parser_terminates(decl)
        for s in decl.states:
            fn = self.new_fn(ctx)
            fn.kind = "parser"
            sscope = Scope(scope)
            for st in s.stmts:
                self.stmt(st, sscope, fn)
            tr = s.transition
            if tr is None:
                fn.emit("return None")
            elif tr.select is None:
                fn.emit(f"return {self._state_ref(tr.state, names, tr.loc)}")
            else:
                self._select(tr, names, sscope, fn)
            self.out.code.append(f"def {names[s.name]}({ctx.sig}):")
            self.out.code += fn.body()
        return names["start"]

    def _state_ref(self, name: str, names: dict, loc) -> str:
        if name in ("accept", "reject"):
            return "None"  # p4c/BMv2: explicit reject behaves as accept
        if name not in names:
            raise P4CompileError(loc, f"{name}: no such parser state")
        return names[name]

    def _select(self, tr: A.Transition, names, scope, fn) -> None:
        keys = []
        for k in tr.select:
            # BMv2 does not bounds-check a lookahead in a select key
            self.walk.in_select_key = True
            try:
                v = self.expr(k, scope, fn)
            finally:
                self.walk.in_select_key = False
            if isinstance(v.ty, InfIntT):
                raise P4CompileError(k.loc, "select key width cannot be inferred")
            tmp = fn.fresh("k")
            fn.emit(f"{tmp} = {v.py}")
            keys.append(V(tmp, v.ty))
        for case in tr.cases:
            cond = self._case_cond(case.keys, keys, scope, fn, case.loc)
            target = self._state_ref(case.state, names, case.loc)
            if cond == "True":
                fn.emit(f"return {target}")
                return
            fn.emit(f"if {cond}: return {target}")
        fn.emit("return None")

    def _case_cond(self, ksets: list[A.Expr], keys: list[V], scope, fn, loc) -> str:
        if not keys and len(ksets) == 1 and isinstance(ksets[0], (A.DefaultKey, A.DontCare)):
            return "True"
        if len(ksets) == 1 and len(keys) > 1:
            k = ksets[0]
            if isinstance(k, (A.DefaultKey, A.DontCare)):
                return "True"
            if isinstance(k, A.Path):
                b = scope.lookup(k.name)
                if isinstance(b, InstB) and b.kind == "value_set":
                    tup = "(" + "".join(unsigned_py(x) + ", " for x in keys) + ")"
                    return f"{b.py}.contains({tup})"
            if isinstance(k, A.ListExpr):
                ksets = k.items
        if len(ksets) != len(keys):
            raise P4CompileError(loc, f"select case has {len(ksets)} keysets for {len(keys)} keys")
        conds = []
        for k, key in zip(ksets, keys, strict=True):
            c = self._keyset_cond(k, key, scope, fn)
            if c != "True":
                conds.append(c)
        return " and ".join(conds) if conds else "True"

    def _keyset_cond(self, k: A.Expr, key: V, scope, fn) -> str:
        if isinstance(k, (A.DefaultKey, A.DontCare)):
            return "True"
        if isinstance(k, A.Mask):
            v = self._keyset_const(k.value, key, scope, fn)
            m = self._keyset_const(k.mask, key, scope, fn)
            return f"({unsigned_py(key)} & {unsigned_py(m)}) == ({unsigned_py(v)} & {unsigned_py(m)})"
        if isinstance(k, A.Range):
            what = "Range boundaries must be a compile-time constants."
            lo = self._keyset_const(k.low, key, scope, fn, what)
            hi = self._keyset_const(k.high, key, scope, fn, what)
            return f"{lo.py} <= {key.py} <= {hi.py}"
        if isinstance(k, A.Path):
            b = scope.lookup(k.name)
            if isinstance(b, InstB) and b.kind == "value_set":
                return f"{b.py}.contains(({unsigned_py(key)},))"
        v = self._keyset_const(k, key, scope, fn)
        return f"{key.py} == {v.py}"

    def _keyset_const(self, e: A.Expr, key: V, scope, fn,
                      what: str = "must evaluate to a compile-time constant") -> V:
        """A select keyset value: BMv2's parser matches constants only (p4c bmv2
        ParserConverter; ranges: ReplaceSelectRange), and p4c allows no calls there."""
        if isinstance(e, A.Call) and not (isinstance(e.func, A.Member)
                                          and e.func.name in SIZE_METHODS):
            raise P4CompileError(e.loc, f"{expr_text(e.func)}(): no function calls allowed in "
                                        "this context")
        v = self.coerce(self.expr(e, scope, fn, key.ty), key.ty, e.loc)
        if v.const is None:
            raise P4CompileError(e.loc, f"{expr_text(e)}: {what}")
        return v
