"""Typed expressions: what the compiler's type checker (`p4emu.compiler.passes.typecheck`)
builds from an AST expression, constant folding rewrites and the emitter turns into
Python.

Every node has its `type`, its source location `loc` (for errors) and, when known at
compile time, its value `const` (an int, bool or str, or the compiler's value of a
constant struct, header or tuple). Names resolve to the compiler's scope bindings, which
the IR holds without knowing their class (`binding`): the IR depends on `p4emu.lang` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.types import Type


@dataclass(frozen=True, slots=True)
class Expr:
    type: Type
    loc: object
    const: object = field(default=None, kw_only=True)


# -- leaves ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Constant(Expr):
    """A literal or a folded value (`const` holds it)."""


@dataclass(frozen=True, slots=True)
class DontCareValue(Expr):
    """`_` (and `default` in a keyset) where an expression is read."""


# -- references to declarations ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class VarRef(Expr):
    """A variable, parameter or run-time constant (read through `binding.py`)."""

    name: str
    binding: object


@dataclass(frozen=True, slots=True)
class ConstRef(Expr):
    """A compile-time constant (`const` is its value)."""

    name: str
    binding: object


@dataclass(frozen=True, slots=True)
class InstanceRef(Expr):
    """A table, extern object, sub-parser/sub-control or value set instance."""

    name: str
    binding: object


@dataclass(frozen=True, slots=True)
class TypeName(Expr):
    """A type in expression position (`E` of `E.member`, `T` of `T(args)`)."""

    binding: object


@dataclass(frozen=True, slots=True)
class CallableRef(Expr):
    """An action, function, extern function or parser/control declaration."""

    name: str
    binding: object


@dataclass(frozen=True, slots=True)
class EnumMember(Expr):
    """`E.m` of an enum (`const` is its code or serializable value)."""

    name: str


@dataclass(frozen=True, slots=True)
class ErrorMember(Expr):
    """`error.m` (`const` is its code)."""

    name: str


# -- accesses ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Field(Expr):
    """A field of a struct, header or header union."""

    base: Expr
    name: str


@dataclass(frozen=True, slots=True)
class MethodRef(Expr):
    """`x.m` naming a method of a header, stack or object, not yet called."""

    base: Expr
    name: str


@dataclass(frozen=True, slots=True)
class StackProperty(Expr):
    """`s.next`, `s.last`, `s.lastIndex`, `s.size` or `s.nextIndex` of a header stack."""

    base: Expr
    name: str


@dataclass(frozen=True, slots=True)
class ApplyResultMember(Expr):
    """`t.apply().hit`, `.miss` or `.action_run`."""

    base: Expr
    name: str


@dataclass(frozen=True, slots=True)
class HeaderQuery(Expr):
    """`h.isValid()`, `h.minSizeInBits()` or `h.minSizeInBytes()`."""

    base: Expr
    name: str


@dataclass(frozen=True, slots=True)
class StackIndex(Expr):
    base: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class TupleIndex(Expr):
    base: Expr
    index: int


@dataclass(frozen=True, slots=True)
class Slice(Expr):
    """`base[hi:lo]` of a bit<N> or int<N>."""

    base: Expr
    hi: int
    lo: int


# -- operators -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Unary(Expr):
    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    """Arithmetic, bitwise, shift, comparison and `&&`/`||` operators on scalars."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Concat(Expr):
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class CompoundEq(Expr):
    """`==`/`!=` of structs, headers, stacks or tuples."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(frozen=True, slots=True)
class Cast(Expr):
    """An explicit cast `(type) operand` (or `type(operand)`) to `type`."""

    operand: Expr


@dataclass(frozen=True, slots=True)
class Convert(Expr):
    """An implicit conversion to `type`: an untyped int taking a width, a serializable enum
    and its underlying type."""

    operand: Expr


# -- aggregates ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ListExpr(Expr):
    """`{a, b}`: a tuple, or a struct or header when `type` is one. `items` hold the parts
    in order, the defaults of `...` after those written."""

    items: tuple[Expr, ...]
    written: int  # how many items were written (evaluated in order, before the defaults)


@dataclass(frozen=True, slots=True)
class StructExpr(Expr):
    """`{f = a, ...}`: `values` in field order; `order` the field indices in the order the
    fields were written (that is the evaluation order); the others take defaults."""

    values: tuple[Expr, ...]
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class InvalidHeader(Expr):
    """`{#}`."""


@dataclass(frozen=True, slots=True)
class DefaultValue(Expr):
    """`...` or an omitted part: P4's default value of `type`."""


# -- calls ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Argument:
    """An argument bound to its parameter: the parameter's `direction` and `type` (type
    variables inferred); `value` is the argument converted to that type (an lvalue for
    `out`/`inout`, the parameter's default when omitted), None for `_` of an `out`."""

    direction: str
    type: Type
    value: Expr | None
    loc: object


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """A call whose result is `type`. `callee` is a `CallableRef` (action, function,
    extern function) or a `MethodRef` (method of a table, sub-parser/control, header,
    stack, extern object or packet).

    `args` are the checked arguments, one per parameter of the callee (the overload
    called, for an extern; a stack's push/pop: its count); `type_args` the binding of
    the type parameters of a generic function or of a packet method (`extract<H>(_)`,
    `lookahead<T>()`). A table's `apply()` has `site`: where control goes after it (None
    when its result is used as a value)."""

    callee: Expr
    args: tuple[Argument, ...] = ()
    type_args: tuple[tuple[str, Type], ...] = ()
    site: object = None
