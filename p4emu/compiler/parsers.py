"""Parser states (`ParserStateEmitter`, a pass of `ProgramGen`): each checked state of a parser (its statements and
its transition, `passes/check_parser_states.py`) becomes a function returning the next
state's function (None: accept), its select as `if` conditions on the keys' values."""

from __future__ import annotations

from p4emu.compiler.blocks import new_fn
from p4emu.compiler.generated import BlockCtx, CompilePass
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import py_ident
from p4emu.compiler.values import V, unsigned_py
from p4emu.ir import blocks as B
from p4emu.ir import parser_states as P


class ParserStateEmitter(CompilePass):
    """The states of a parser -> one function each."""

    USES = ("exprs", "stmts")

    def emit_states(self, block: B.CheckedBlock, ctx: BlockCtx) -> str:
        """The functions of the states of checked parser `block`; the start state's name."""
        names = {st.name: f"S_{self.next_id()}_{py_ident(st.name)}" for st in block.states}
        for s in block.states:
            fn = new_fn(ctx, self.next_id)
            fn.kind = "parser"
            for st in s.stmts:
                self.stmts.emit_body(st, fn)
            self.out.typed.append(s.transition)
            self.emit_transition(s.transition, names, fn)
            self.out.code.append(f"def {names[s.name]}({ctx.sig}):")
            self.out.code += fn.body()
        return names["start"]

    def emit_transition(self, tr: str | P.Select | None, names: dict, fn) -> None:
        if not isinstance(tr, P.Select):
            fn.emit(f"return {names[tr] if tr is not None else None}")
            return
        keys = []
        for k in tr.keys:
            # BMv2 does not bounds-check a lookahead in a select key
            self.walk.in_select_key = True
            try:
                v = self.exprs.emit(fold(k), fn)
            finally:
                self.walk.in_select_key = False
            tmp = fn.fresh("k")
            fn.emit(f"{tmp} = {v.py}")
            keys.append(V(tmp, v.ty))
        for case in tr.cases:
            conds = [c for c in (self._keyset_cond(k, keys, i, fn) for i, k in enumerate(case.keysets))
                     if c != "True"]
            target = names[case.state] if case.state is not None else None
            if not conds:
                fn.emit(f"return {target}")
                return
            fn.emit(f"if {' and '.join(conds)}: return {target}")
        fn.emit("return None")

    def _keyset_cond(self, k: P.Keyset, keys: list[V], i: int, fn) -> str:
        """The Python condition of keyset `k` on key `i` (on all keys for a whole value set)."""
        if isinstance(k, P.AnyKey):
            return "True"
        if isinstance(k, P.InValueSet) and k.whole:
            tup = "(" + "".join(unsigned_py(x) + ", " for x in keys) + ")"
            return f"{k.binding.py}.contains({tup})"
        if isinstance(k, P.InValueSet):
            return f"{k.binding.py}.contains(({unsigned_py(keys[i])},))"
        key = keys[i]
        if isinstance(k, P.Masked):
            v, m = self.exprs.emit(k.value, fn), self.exprs.emit(k.mask, fn)
            return f"({unsigned_py(key)} & {unsigned_py(m)}) == ({unsigned_py(v)} & {unsigned_py(m)})"
        if isinstance(k, P.InRange):
            return f"{self.exprs.emit(k.low, fn).py} <= {key.py} <= {self.exprs.emit(k.high, fn).py}"
        return f"{key.py} == {self.exprs.emit(k.value, fn).py}"
