"""Expressions (mixin of `ProgramGen`): `expr` has the checker type-check a P4 expression
into the typed IR (`passes/typecheck.py`), folds its constants (`passes/folding.py`) and emits its
Python (`passes/emit.py`), returning a `V` (the Python, the type, the value if known).

`want` is the type the context expects: it gives untyped int literals and brace
expressions their type (as p4c's TypeInference does); callers still coerce the result
where they need that type.
"""

from __future__ import annotations

from p4emu.compiler.passes.emit import ExprEmit
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import Scope
from p4emu.compiler.values import V
from p4emu.lang import ast as A
from p4emu.lang.types import Type


class ExprGen(ExprEmit):
    """Expression half of the generator; `self` is the `ProgramGen`."""

    def expr(self, e: A.Expr, scope: Scope, fn, want: Type | None = None) -> V:
        return self.emit_expr(fold(self.checker.check_expr(e, scope, want)), fn)
