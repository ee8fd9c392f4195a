"""Statements (mixin of `ProgramGen`): `stmt`/`block` emit the Python of a checked statement
(`passes/check_statements.py`) into the generated function `fn` (`passes/emit_statements.py`),
recording its typed IR for the back-end checks (`passes/check_backend.py`).
"""

from __future__ import annotations

from p4emu.compiler.passes.emit_statements import StatementEmit
from p4emu.ir import statements as S


class StmtGen(StatementEmit):
    """Statement half of the generator; `self` is the `ProgramGen`."""

    def stmt(self, s: S.Stmt, fn) -> None:
        self.out.typed.append(s)
        self.emit_stmt(s, fn)
