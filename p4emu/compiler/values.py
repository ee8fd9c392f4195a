"""Compile-time values of the expression generator: `V` (a generated Python expression
with its P4 type and, when known, its constant value) and helpers on constants, widths
and value representations shared by the generator's modules."""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.errors import unsupported
from p4emu.lang.types import (
    BitsT,
    BoolT,
    EnumT,
    ObjectT,
    StackT,
    StructT,
    TupleT,
    Type,
    VarbitT,
)


@dataclass(slots=True)
class V:
    py: str
    ty: Type
    const: object = None  # compile-time value (int, bool, str, AggConst) or None
    ref: object = None  # binding for instance/method targets


def wrap(value: int, t: BitsT) -> int:
    if t.signed:
        h = 1 << (t.width - 1)
        return ((value + h) & t.mask) - h
    return value & t.mask


def unsigned_py(v: V) -> str:
    """Python source of `v` as an unsigned int: int<N> masked to N bits, a bool as 0/1
    (how table keys, select keys, slices and concatenations read a value)."""
    t = v.ty
    if isinstance(t, BitsT) and t.signed:
        return f"({v.py} & {t.mask})"
    if isinstance(t, BoolT):
        return f"int({v.py})"
    return v.py


@dataclass(frozen=True)
class AggConst:
    """Compile-time value of a struct, header or tuple (a `const` of that type).

    `py` builds a fresh copy at run time; `items` (scalars or nested AggConst, in field
    order) let member and index accesses on a constant fold to constants, and equality
    compares values (p4c folds `==` on constant structs the same way).
    """

    py: str = field(compare=False)
    items: tuple
    names: tuple | None = None  # field names of a struct/header; None for a tuple
    valid: bool | None = None  # validity of a header; None otherwise

    def item(self, name: str):
        return self.items[self.names.index(name)] if self.names and name in self.names else None


def lit(value: object) -> str:
    if isinstance(value, AggConst):
        return value.py
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value) if -1024 < value < 1024 else (hex(value) if value >= 0 else str(value))
    if isinstance(value, str):
        return repr(value)
    raise TypeError(value)


def width_of(t: Type) -> int | None:
    if isinstance(t, BitsT):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, EnumT) and t.underlying is not None:
        return t.underlying.width
    return None


def key_width(t: Type, loc) -> int:
    """Bit width of a value used as a table key, action parameter, value-set field or
    register cell (P4Info bitwidth): plain enums and errors are bit<32> in BMv2."""
    width = width_of(t)
    if width is not None:
        return width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, EnumT):
        return 32
    if isinstance(t, TupleT):
        raise unsupported(loc, "tuple-typed table key")
    if isinstance(t, StructT):
        return t.bit_width()
    return 32


def is_compound(t: Type) -> bool:
    """Values of this type are Python objects, copied rather than passed by value."""
    return isinstance(t, (StructT, StackT, ObjectT))


def zero_value(t: Type) -> str:
    """Python source of P4's default value of `t` (0, false, invalid headers)."""
    if isinstance(t, BoolT):
        return "False"
    if isinstance(t, VarbitT):
        return "(0, 0)"
    if isinstance(t, TupleT):
        return "(" + "".join(zero_value(x) + ", " for x in t.items) + ")"
    if isinstance(t, StructT):
        return f"{t.py}()"
    if isinstance(t, StackT):
        return f"Stack({t.elem.py}, {t.size})"
    return "0"
