"""Name bindings, scopes and the emitter of one generated Python function."""

from __future__ import annotations

import keyword
from collections.abc import Callable
from dataclasses import dataclass, field

from p4emu.lang.types import Type


class Binding:
    pass


@dataclass(eq=False)
class VarB(Binding):
    """A run-time value reachable through a Python expression (`py`)."""

    ty: Type
    py: str
    writable: bool = True
    direction: str = ""


@dataclass(eq=False)
class ConstB(Binding):
    ty: Type
    value: object


@dataclass(eq=False)
class TypeB(Binding):
    ty: Type


@dataclass(eq=False)
class BlockFrame:
    """A parser or control instance while the checker checks it: an action declared in it
    is callable from it only (`ActionB.owner`), and each `T.apply()` in it makes an
    instance named after `T`, the second one `T_1` (`direct_names`)."""

    kind: str  # "parser" or "control"
    name: str  # prefix of fully qualified names
    decl: object  # the AST's parser/control declaration
    direct_names: set[str] = field(default_factory=set)
    ctx: object = None  # the emitter's `BlockCtx` once the instance is generated
    bindings: dict[int, Binding] = field(default_factory=dict)
    """id(a constructor parameter, parameter or local of `decl`) -> its binding in this
    instance, what a name the resolution pass bound to that declaration denotes."""


@dataclass(eq=False)
class ActionB(Binding):
    """An action. The checker checks its body on its first use (a call or a table's
    actions list), as p4c reports no error in an action nothing uses; the emitter
    generates it then too (`py`)."""

    decl: object
    full_name: str
    owner: BlockFrame | None  # the declaring parser/control instance, None for global actions
    py: str = ""
    scope: Scope | None = None  # where it is declared (None: the global scope)
    params: tuple = ()  # `p4emu.ir.blocks.Parameter`s, typed when declared
    body: object = None  # `p4emu.ir.statements.Block` once checked
    checked: bool = False  # its body is checked (or being checked)


@dataclass(eq=False)
class FuncB(Binding):
    """A function: checked and generated once per binding of its type parameters."""

    decl: object
    py: str = ""
    owner: object | None = None
    variants: dict = field(default_factory=dict)
    """Type arguments (as strings) -> the checked `p4emu.ir.blocks.FunctionBody`."""
    emitted: dict = field(default_factory=dict)
    """Type arguments (as strings) -> the name of the generated function."""


@dataclass(eq=False)
class ExternFuncB(Binding):
    name: str
    overloads: list = field(default_factory=list)


@dataclass(eq=False)
class InstB(Binding):
    """An instance: table, extern object, sub-parser/sub-control, value set."""

    kind: str
    ty: Type
    full_name: str
    py: str
    decl: object = None
    block: object = None
    """A sub-parser/control: its checked `p4emu.ir.blocks.CheckedBlock`."""
    extern: object = None
    """A top-level extern object: its checked `p4emu.ir.declarations.ExternInstance`."""
    substituted: bool = True
    """A sub-block p4c inlines by substituting its arguments (`analysis.substitutable`):
    every call site passes the same non-aliasing arguments."""
    ctx: object = None
    """A sub-block: the emitter's `BlockCtx` once generated."""
    applies: int = 0
    """A sub-block: how many of its applies the emitter generated (BMv2 applies a table
    once per packet)."""
    sites: list = field(default_factory=list)
    """A table: where control goes after each of its applies (BMv2's tables have one
    successor)."""


@dataclass(eq=False)
class BlockDeclB(Binding):
    """A parser/control/package declaration (a type that can be instantiated)."""

    decl: object
    ty: Type


class Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: Scope | None = None):
        self.names: dict[str, Binding] = {}
        self.parent = parent

    def lookup(self, name: str) -> Binding | None:
        s: Scope | None = self
        while s is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None

    def lookup_local(self, name: str) -> Binding | None:
        """`name`'s binding in this scope or an enclosing one short of the root (the global
        scope): a type variable, or a name declared in a block."""
        s: Scope | None = self
        while s is not None and s.parent is not None:
            b = s.names.get(name)
            if b is not None:
                return b
            s = s.parent
        return None

    def root(self) -> Scope:
        s = self
        while s.parent is not None:
            s = s.parent
        return s

    def bind(self, name: str, b: Binding) -> None:
        self.names[name] = b

    def declare(self, name: str, b: Binding, loc=None) -> None:
        """Bind a new declaration; a second one of the same name in one scope is an error."""
        if name in self.names:
            from p4emu.lang.errors import P4CompileError

            raise P4CompileError(loc, f"{name}: duplicate declaration")
        self.names[name] = b


def tvar_scope(scope: Scope, tyenv: dict) -> Scope:
    """A child of `scope` binding the type variables of `tyenv` (name -> type)."""
    s = Scope(scope)
    for name, t in tyenv.items():
        s.bind(name, TypeB(t))
    return s


def py_ident(name: str) -> str:
    s = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    return s + "_" if keyword.iskeyword(s) else s


class Fn:
    """Lines of one generated Python function, with fresh local names."""

    def __init__(self, next_id: Callable[[], int]):
        self.lines: list[str] = []
        self.indent = 1
        self._next_id = next_id  # the program's: names stay unique across functions

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def detached(self, indent: int) -> Fn:
        """An empty body at `indent` with this function's names and attributes: lines
        generated once, to be placed at several points of this function."""
        other = type(self)(self._next_id)
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("lines", "indent")})
        other.indent = indent
        return other

    def fresh(self, base: str) -> str:
        return f"{py_ident(base)}_{self._next_id()}"

    def body(self) -> list[str]:
        return self.lines if self.lines else ["    " * self.indent + "pass"]
