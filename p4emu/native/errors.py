"""Why a program is outside the native subset."""

from __future__ import annotations


class NativeUnsupported(Exception):
    """The program uses a construct the C emitter does not handle; the message is one line
    naming it. Callers fall back to the pure-Python `Pipeline`."""


def refuse(what: str, loc: object = None) -> NativeUnsupported:
    where = ""
    if loc is not None and getattr(loc, "line", None) is not None:
        where = f" ({getattr(loc, 'file', '?')}:{loc.line})"
    return NativeUnsupported(f"outside the native subset: {what}{where}")
