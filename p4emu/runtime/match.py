"""Field match values of table entries, const entries and value-set members."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Exact:
    value: int


@dataclass(frozen=True, slots=True)
class Lpm:
    value: int
    prefix_len: int


@dataclass(frozen=True, slots=True)
class Ternary:
    value: int
    mask: int


@dataclass(frozen=True, slots=True)
class Range:
    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Optional:  # noqa: UP007 -- the P4Runtime match kind, not typing.Optional
    value: int


FieldMatch = Exact | Lpm | Ternary | Range | Optional


def lpm_mask(prefix_len: int, bitwidth: int) -> int:
    """Mask with the top `prefix_len` of `bitwidth` bits set."""
    return ((1 << prefix_len) - 1) << (bitwidth - prefix_len)


def to_value_mask(fm: FieldMatch | None, bitwidth: int) -> tuple[int, int] | None:
    """(value, mask) equivalent of a non-range match; None (don't care) -> (0, 0)."""
    if fm is None:
        return (0, 0)
    full = (1 << bitwidth) - 1
    if isinstance(fm, Exact | Optional):
        return (fm.value, full)
    if isinstance(fm, Lpm):
        return (fm.value, lpm_mask(fm.prefix_len, bitwidth))
    if isinstance(fm, Ternary):
        return (fm.value, fm.mask)
    return None


def field_matches(fm: FieldMatch | None, value: int, bitwidth: int) -> bool:
    """Whether `value` matches `fm` (slow path; tables precompile their checks)."""
    if isinstance(fm, Range):
        return fm.low <= value <= fm.high
    vm = to_value_mask(fm, bitwidth)
    assert vm is not None
    return value & vm[1] == vm[0]
