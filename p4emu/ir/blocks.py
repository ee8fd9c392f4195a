"""Typed IR of whole parsers, controls, functions and of the program: what the checker
(`p4emu.compiler.checker.ProgramChecker.check_program`) builds for the whole program before
anything is emitted, and the emitter (`p4emu.compiler.program.ProgramGen`) generates Python
from.

A block's locals, states and body are typed declarations, statements and transitions
(`declarations`, `table_decls`, `statements`, `parser_states`). Names are the compiler's
scope bindings, held opaquely (`binding`): the emitter gives them their Python names.
An action's checked body is on its binding (it is checked on its first use).
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.declarations import BlockInstance, ExternInstance, ValueSetDecl
from p4emu.ir.expressions import Expr
from p4emu.ir.parser_states import Select
from p4emu.ir.statements import Block, Stmt
from p4emu.ir.table_decls import TableDecl
from p4emu.lang.types import StructT, Type


@dataclass(frozen=True, slots=True)
class Parameter:
    """A parameter of an action, a function or a block's apply, with its binding."""

    name: str
    direction: str  # "in", "out", "inout" or "" (directionless: action data)
    type: Type
    binding: object
    loc: object = None


# -- declarations in a parser or control ---------------------------------------------------
@dataclass(frozen=True, slots=True)
class LocalVar:
    """A variable of the block (a field of its frame), with its initial value."""

    name: str
    type: Type
    binding: object
    init: Expr | None
    loc: object = None


@dataclass(frozen=True, slots=True)
class LocalAction:
    binding: object  # its body is checked on first use


@dataclass(frozen=True, slots=True)
class LocalTable:
    table: TableDecl
    binding: object


@dataclass(frozen=True, slots=True)
class LocalInstance:
    """A sub-parser/control (`binding.block`) or an extern object (`extern`)."""

    binding: object
    extern: ExternInstance | None = None


@dataclass(frozen=True, slots=True)
class LocalValueSet:
    decl: ValueSetDecl
    binding: object


Local = LocalVar | LocalAction | LocalTable | LocalInstance | LocalValueSet


@dataclass(frozen=True, slots=True)
class ParserState:
    """A state: its statements, then where it goes (a state's name, a `Select`, or None:
    accept)."""

    name: str
    stmts: tuple[Stmt, ...]
    transition: str | Select | None
    loc: object = None


@dataclass(frozen=True, slots=True)
class CheckedBlock:
    """A parser or control instance, checked whole. `frame` is the checker's view of it
    (what its actions belong to); `arg_instances` the instances made for its
    constructor arguments (`Wrap(Impl()) w;`), generated first."""

    instance: BlockInstance
    frame: object
    params: tuple[Parameter, ...]
    arg_instances: tuple[object, ...]
    locals: tuple[Local, ...]
    states: tuple[ParserState, ...] = ()  # a parser's
    body: Block | None = None  # a control's apply

    @property
    def kind(self) -> str:
        return self.frame.kind

    @property
    def name(self) -> str:
        return self.instance.name


@dataclass(frozen=True, slots=True)
class FunctionBody:
    """A function for one binding of its type parameters."""

    ret_type: Type
    params: tuple[Parameter, ...]
    body: Block


@dataclass(frozen=True, slots=True)
class Program:
    """The whole program, checked: the top-level declarations that need code (actions,
    extern objects: bindings, in declaration order), main's blocks by V1Switch role, the
    blocks main does not use (checked because p4c reports their errors too) and the
    types of the headers, metadata and standard metadata."""

    globals: tuple[object, ...]
    roles: tuple[tuple[str, CheckedBlock], ...]
    unused: tuple[CheckedBlock, ...]
    header_types: tuple[tuple[str, StructT], ...]
    main_annotations: tuple = ()
