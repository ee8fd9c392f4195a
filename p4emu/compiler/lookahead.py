"""`lookahead<T>()` of headers, structs and header stacks: how many bits to peek and the
Python that builds a T from them.

p4c types lookahead<T> for any fixed-size T; a struct's fields (headers, stacks, bits)
are laid out one after another, MSB first, and every header in the value is valid, as if
extracted. Varbit fields have no fixed size, so they are refused.
"""

from __future__ import annotations

from p4emu.compiler.structs import flat_width
from p4emu.lang.types import BitsT, BoolT, EnumT, StackT, StructT, Type


def lookahead_width(t: Type) -> int | None:
    """Bits of a T, or None when it has no fixed size (varbit, unions, ...)."""
    if isinstance(t, StructT) and t.kind == "header":
        widths = [flat_width(ft) for _, ft in t.fields]
        return None if None in widths else sum(widths)
    if isinstance(t, StructT) and t.kind == "struct":
        widths = [lookahead_width(ft) for _, ft in t.fields]
        return None if None in widths else sum(widths)
    if isinstance(t, StackT):
        w = lookahead_width(t.elem)
        return None if w is None else w * t.size
    return flat_width(t)


def from_bits_lines(t: Type, v: str, end: int, target: str) -> list[str]:
    """Statements setting `target` (a T) from bits [end - width(T), end) of integer `v`
    (bit 0 = the last bit peeked)."""
    w = lookahead_width(t)
    pos = end - w
    raw = f"(({v} >> {pos}) & {(1 << w) - 1})"
    if isinstance(t, StructT) and t.kind == "header":
        return [f"{target}.set_fields({raw})"]
    if isinstance(t, StructT):
        lines = []
        for n, ft in t.fields:
            lines += from_bits_lines(ft, v, end, f"{target}.f_{n}")
            end -= lookahead_width(ft)
        return lines
    if isinstance(t, StackT):
        lines = []
        for i in range(t.size):
            lines += from_bits_lines(t.elem, v, end, f"{target}.items[{i}]")
            end -= lookahead_width(t.elem)
        return lines + [f"{target}.nxt = {t.size}"]
    if isinstance(t, BoolT):
        return [f"{target} = {raw} != 0"]
    signed = t.signed if isinstance(t, BitsT) else (
        isinstance(t, EnumT) and t.underlying is not None and t.underlying.signed)
    if signed:
        h = 1 << (w - 1)
        return [f"{target} = ({raw} ^ {h}) - {h}"]
    return [f"{target} = {raw}"]
