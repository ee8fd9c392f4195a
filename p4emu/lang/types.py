"""Semantic types of the checker."""

from __future__ import annotations

from dataclasses import dataclass, field


class Type:
    def is_scalar(self) -> bool:
        return True

    def __str__(self) -> str:
        return type(self).__name__


@dataclass(frozen=True)
class BitsT(Type):
    width: int
    signed: bool = False
    # the name of a `type bit<N> T` declaration: bit<N> to p4emu (equal to it), but p4c's
    # Type_Newtype where only bit<N> will do (say, a shift amount)
    newtype: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{'int' if self.signed else 'bit'}<{self.width}>"

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass(frozen=True)
class VarbitT(Type):
    max_width: int

    def __str__(self) -> str:
        return f"varbit<{self.max_width}>"


class _Singleton(Type):
    name = "?"

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name


class BoolT(_Singleton):
    name = "bool"


class InfIntT(_Singleton):
    name = "int"


class StringT(_Singleton):
    name = "string"


class VoidT(_Singleton):
    name = "void"


class ErrorT(_Singleton):
    name = "error"


class MatchKindT(_Singleton):
    name = "match_kind"


class DontCareT(_Singleton):
    name = "_"


BOOL, INFINT, STRING, VOID, ERROR, MATCH_KIND, DONTCARE = (
    BoolT(), InfIntT(), StringT(), VoidT(), ErrorT(), MatchKindT(), DontCareT())


@dataclass(eq=False)
class StructT(Type):
    """header, struct or header_union."""

    kind: str
    name: str
    fields: list[tuple[str, Type]] = field(default_factory=list)
    field_annotations: dict[str, list] = field(default_factory=dict)
    annotations: list = field(default_factory=list)
    py: str = ""  # generated class name

    def is_scalar(self) -> bool:
        return False

    def field_type(self, name: str) -> Type | None:
        for n, t in self.fields:
            if n == name:
                return t
        return None

    def __str__(self) -> str:
        return self.name

    @property
    def varbit_field(self) -> str | None:
        for n, t in self.fields:
            if isinstance(t, VarbitT):
                return n
        return None

    def bit_width(self) -> int:
        total = 0
        for _, t in self.fields:
            if isinstance(t, BitsT):
                total += t.width
            elif isinstance(t, BoolT):
                total += 1
            elif isinstance(t, EnumT) and t.underlying is not None:
                total += t.underlying.width
            elif isinstance(t, StructT):
                total += t.bit_width()
        return total


@dataclass(eq=False)
class EnumT(Type):
    name: str
    members: list[str]
    underlying: BitsT | None = None
    values: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class StackT(Type):
    elem: StructT
    size: int

    def is_scalar(self) -> bool:
        return False

    def __str__(self) -> str:
        return f"{self.elem}[{self.size}]"


@dataclass(eq=False)
class TupleT(Type):
    items: list[Type]

    def is_scalar(self) -> bool:
        return False

    def __str__(self) -> str:
        return "tuple<" + ", ".join(map(str, self.items)) + ">"


@dataclass(eq=False)
class TypeVarT(Type):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class ObjectT(Type):
    """Extern, parser, control, package or table types: not values."""

    kind: str  # extern, parser, control, package, table, action, packet_in, packet_out
    name: str
    decl: object = None
    type_args: dict = field(default_factory=dict)

    def is_scalar(self) -> bool:
        return False

    def __str__(self) -> str:
        return self.name


def same_type(a: Type, b: Type) -> bool:
    if a is b or a == b:
        return True
    if isinstance(a, TupleT) and isinstance(b, TupleT):
        return len(a.items) == len(b.items) and all(map(same_type, a.items, b.items))
    if isinstance(a, StackT) and isinstance(b, StackT):
        return a.elem is b.elem and a.size == b.size
    return False
