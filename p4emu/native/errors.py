"""Why a program is outside the native subset."""

from __future__ import annotations


class NativeUnsupported(Exception):
    """The program uses a construct the C emitter does not handle; the message is one line
    naming it (and where it is, when known). Callers fall back to the pure-Python
    `Pipeline`."""

    def __init__(self, construct: str, where: str | None = None) -> None:
        self.construct = construct  # "the extern function clone"
        self.where = where  # "file:line", or None
        located = f" ({where})" if where is not None else ""
        super().__init__(f"outside the native subset: {construct}{located}")


def refuse(what: str, loc: object = None) -> NativeUnsupported:
    """The refusal of construct `what` at `loc` (a source location, or None)."""
    where = None
    if loc is not None and getattr(loc, "line", None) is not None:
        where = f"{getattr(loc, 'file', '?')}:{loc.line}"
    return NativeUnsupported(what, where)
