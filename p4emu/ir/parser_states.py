"""Typed parser transitions: what the parser-state checker
(`p4emu.compiler.passes.check_parser_states`) builds from an AST state's transition (its
statements are typed statements, `p4emu.ir.statements`) and the parser generator
(`p4emu.compiler.parsers`) turns into the return of the next state. A transition is a
state's name, a `Select`, or None (accept, reject or no transition: BMv2 accepts).

Keyset values are typed expressions (`p4emu.ir.expressions`) of the key's type, known at
compile time; value sets are the compiler's bindings, held opaquely.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.expressions import Expr


@dataclass(frozen=True, slots=True)
class Keyset:
    """How one key (or, for `InValueSet.whole`, all keys) is matched."""

    loc: object


@dataclass(frozen=True, slots=True)
class AnyKey(Keyset):
    """`default` or `_`."""


@dataclass(frozen=True, slots=True)
class Exact(Keyset):
    value: Expr


@dataclass(frozen=True, slots=True)
class Masked(Keyset):
    """`value &&& mask`."""

    value: Expr
    mask: Expr


@dataclass(frozen=True, slots=True)
class InRange(Keyset):
    """`low .. high`."""

    low: Expr
    high: Expr


@dataclass(frozen=True, slots=True)
class InValueSet(Keyset):
    """A `value_set` instance (`binding`) matching one key, or the tuple of all keys
    (`whole`)."""

    binding: object
    whole: bool = False


@dataclass(frozen=True, slots=True)
class SelectCase:
    """`keysets -> state` (`state` None: accept or reject)."""

    loc: object
    keysets: tuple[Keyset, ...]
    state: str | None


@dataclass(frozen=True, slots=True)
class Select:
    """`select (keys) { cases }`."""

    loc: object
    keys: tuple[Expr, ...]
    cases: tuple[SelectCase, ...]
