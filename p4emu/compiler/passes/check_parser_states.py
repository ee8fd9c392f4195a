"""The parser-transition checker (`ParserStateChecker`, a pass of the `ProgramChecker`): an
AST parser state's transition -> a typed one (`p4emu.ir.parser_states`): target states,
select keys and keysets with BMv2's rules (keysets are constants; p4c's bmv2
ParserConverter, ReplaceSelectRange). The target states are the name-resolution pass's
bindings (`resolve_names.py`); its error for an undeclared state is raised here, after the
case's keysets, where it always was (a case after one matching anything is never reached,
so its keysets are not checked, but its target is, after the reached cases). The state's
statements are statements (`check_statements.py`, in a parser's body).

A state's statements, and what each uses, are checked before its transition
(`check_blocks.py`), so their errors come first."""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import convert
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.passes.resolve_names import ParserStates, StateRef
from p4emu.compiler.scope import InstB, Scope
from p4emu.ir import expressions as I
from p4emu.ir import parser_states as P
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import InfIntT, Type

# built-in methods p4c folds to constants, so they may appear in select keysets
SIZE_METHODS = ("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes")


class ParserStateChecker(CompilePass):
    """Parser states' transitions -> typed selects."""

    USES = ("exprs",)

    def check_transition(self, s: A.StateDecl, scope: Scope, states: ParserStates) -> str | P.Select | None:
        """Where state `s` of a parser whose states are resolved as `states` goes next."""
        tr = s.transition
        if tr is None:
            return None
        if tr.select is None:
            return _target(states.target(tr))
        keys = []
        for k in tr.select:
            v = self.exprs.check(k, scope)
            if isinstance(v.type, InfIntT):
                raise P4CompileError(k.loc, "select key width cannot be inferred")
            keys.append(v)
        cases = []
        for i, c in enumerate(tr.cases):
            keysets = self._case_keysets(c.keys, keys, scope, c.loc)
            cases.append(P.SelectCase(c.loc, keysets, _target(states.target(c))))
            if all(isinstance(k, P.AnyKey) for k in keysets):
                # the cases after one that matches anything are never reached, but p4c
                # resolves their states all the same
                for unreached in tr.cases[i + 1:]:
                    states.target(unreached)
                break
        return P.Select(tr.loc, tuple(keys), tuple(cases))

    def _case_keysets(self, ksets: list[A.Expr], keys: list[I.Expr], scope, loc) -> tuple[P.Keyset, ...]:
        if not keys and len(ksets) == 1 and isinstance(ksets[0], (A.DefaultKey, A.DontCare)):
            return (P.AnyKey(loc),)
        if len(ksets) == 1 and len(keys) > 1:
            k = ksets[0]
            if isinstance(k, (A.DefaultKey, A.DontCare)):
                return (P.AnyKey(k.loc),)
            if isinstance(k, A.Path):
                b = scope.lookup(k.name)
                if isinstance(b, InstB) and b.kind == "value_set":
                    return (P.InValueSet(k.loc, b, whole=True),)
            if isinstance(k, A.ListExpr):
                ksets = k.items
        if len(ksets) != len(keys):
            raise P4CompileError(loc, f"select case has {len(ksets)} keysets for {len(keys)} keys")
        return tuple(self._keyset(k, key.type, scope) for k, key in zip(ksets, keys, strict=True))

    def _keyset(self, k: A.Expr, t: Type, scope) -> P.Keyset:
        if isinstance(k, (A.DefaultKey, A.DontCare)):
            return P.AnyKey(k.loc)
        if isinstance(k, A.Mask):
            return P.Masked(k.loc, self._keyset_const(k.value, t, scope), self._keyset_const(k.mask, t, scope))
        if isinstance(k, A.Range):
            what = "Range boundaries must be a compile-time constants."
            return P.InRange(k.loc, self._keyset_const(k.low, t, scope, what),
                             self._keyset_const(k.high, t, scope, what))
        if isinstance(k, A.Path):
            b = scope.lookup(k.name)
            if isinstance(b, InstB) and b.kind == "value_set":
                return P.InValueSet(k.loc, b)
        return P.Exact(k.loc, self._keyset_const(k, t, scope))

    def _keyset_const(self, e: A.Expr, t: Type, scope,
                      what: str = "must evaluate to a compile-time constant") -> I.Expr:
        """A select keyset value: BMv2's parser matches constants only (p4c bmv2
        ParserConverter; ranges: ReplaceSelectRange), and p4c allows no calls there."""
        if isinstance(e, A.Call) and not (isinstance(e.func, A.Member)
                                          and e.func.name in SIZE_METHODS):
            raise P4CompileError(e.loc, f"{expr_text(e.func)}(): no function calls allowed in "
                                        "this context")
        v = fold(convert(self.exprs.check(e, scope, t), t, e.loc))
        if v.const is None:
            raise P4CompileError(e.loc, f"{expr_text(e)}: {what}")
        return v


def _target(ref: StateRef) -> str | None:
    """The state a transition goes to; None for accept and reject (p4c/BMv2: an explicit
    reject behaves as accept)."""
    return None if ref.state is None else ref.name
