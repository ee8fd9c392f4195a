"""A name-resolution error, recorded by the pass (`resolve_names.py`) and raised by the
checker where it needs the name."""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.lang.errors import P4CompileError


@dataclass(frozen=True)
class Unresolved:
    """A name-resolution error, recorded: `raise_` raises it where the checker needs the
    name (each time: a parser instantiated twice is checked twice)."""

    loc: object
    message: str

    def raise_(self):
        raise P4CompileError(self.loc, self.message)
