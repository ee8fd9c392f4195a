"""Statements (mixin of `ProgramGen`): `stmt`/`block` have the checker check a P4 statement
into the typed IR (`passes/check_statements.py`) and emit its Python (`passes/emit_statements.py`) into
the generated function `fn`, whose kind (action, function, parser state, control) and
return type say which statements are allowed.
"""

from __future__ import annotations

from p4emu.compiler.passes.check_statements import Body
from p4emu.compiler.passes.emit_statements import StatementEmit
from p4emu.compiler.scope import Scope
from p4emu.ir import statements as S
from p4emu.lang import ast as A


class StmtGen(StatementEmit):
    """Statement half of the generator; `self` is the `ProgramGen`."""

    def stmt(self, s: A.Stmt, scope: Scope, fn) -> None:
        checked = self.checker.check_stmt(s, scope, body_of(fn))
        self.out.typed.append(checked)
        self.emit_stmt(checked, fn)

    def block(self, b: A.Block, scope: Scope, fn) -> S.Block:
        """Check and emit block `b`; its typed IR (for the back-end checks)."""
        checked = self.checker.check_block(b, scope, body_of(fn))
        self.out.typed.append(checked)
        self.emit_stmt(checked, fn)
        return checked


def body_of(fn) -> Body:
    """What body the statements generated into `fn` are in."""
    return Body(getattr(fn, "kind", ""), getattr(fn, "ret_type", None), bool(getattr(fn, "epilogue", "")))
