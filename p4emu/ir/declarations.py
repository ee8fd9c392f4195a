"""Typed declarations: what the compiler's declaration checker
(`p4emu.compiler.passes.check_declarations`) makes of a `const`, an extern instantiation,
a value set and the constructor arguments of a parser/control instance, and the generator
emits.

Values are typed, folded expressions (`p4emu.ir.expressions`) whose `const` is the value.
Block declarations and the instances passed as arguments are the compiler's AST nodes and
scope bindings, held opaquely.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.expressions import Expr
from p4emu.lang.types import ObjectT, Type


@dataclass(frozen=True, slots=True)
class ConstDecl:
    """`const T name = value;`, top-level or in a block."""

    name: str
    type: Type
    value: Expr  # converted to `type` and folded
    loc: object = None

    @property
    def const(self) -> object:
        return self.value.const


@dataclass(frozen=True, slots=True)
class ExternInstance:
    """An instantiation of a v1model extern object (register, counter, meter, action
    profile/selector and their direct forms)."""

    name: str  # control-plane name
    type: ObjectT  # the extern with its type arguments
    args: tuple[Expr, ...]  # constructor arguments in parameter order, folded constants
    annotations: tuple
    loc: object

    @property
    def kind(self) -> str:
        return self.type.name


@dataclass(frozen=True, slots=True)
class ValueSetDecl:
    """`value_set<T>(size) name;` in a parser."""

    name: str  # control-plane name
    type: Type
    size: int
    fields: tuple[tuple[str, int, tuple], ...]  # (name, bitwidth, annotations); one unnamed if not a struct
    annotations: tuple
    loc: object


@dataclass(frozen=True, slots=True)
class CtorArgument:
    """A parser/control constructor parameter bound to its argument (or its default):
    a constant `value`, an existing parser/control instance (`instance`, a binding) or
    one made for this argument (`block`, as in `Wrap(Impl()) w;`)."""

    name: str
    type: Type
    value: Expr | None = None
    instance: object = None
    block: BlockInstance | None = None


@dataclass(frozen=True, slots=True)
class BlockParam:
    """A parameter of a parser's or control's apply."""

    name: str
    direction: str  # "in", "out", "inout" or "" (directionless)
    type: Type
    loc: object
    type_loc: object = None  # where its type is written


@dataclass(frozen=True, slots=True)
class BlockInstance:
    """An instance of a parser or control: its declaration (the AST's), the prefix of its
    fully qualified names, its bound constructor arguments and its typed parameters."""

    decl: object
    type: ObjectT  # the parser or control
    name: str
    args: tuple[CtorArgument, ...]
    params: tuple[BlockParam, ...] = ()
