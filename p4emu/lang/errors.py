"""Compile errors with source locations (`file:line:col: error: ...`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOLOC = Loc("<builtin>", 0, 0)


class P4CompileError(Exception):
    """A user error in the P4 program; str() is `file:line:col: error: message`."""

    def __init__(self, loc: Loc | None, message: str):
        self.loc = loc or NOLOC
        self.message = message
        super().__init__(f"{self.loc}: error: {message}")


def unsupported(loc: Loc | None, construct: str) -> P4CompileError:
    """Valid P4 that p4emu does not implement: never silently miscompiled."""
    return P4CompileError(loc, f"unsupported: {construct}")
