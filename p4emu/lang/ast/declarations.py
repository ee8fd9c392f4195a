"""Declarations: parameters, types (header, struct, enum, typedef...), externs, functions,
actions, value sets, parsers, controls, package types, and the program that lists them.

The declarations that are also statements (`VarDecl`, `InstanceDecl`) are in
`statements`, table nodes in `tables` and parser states in `parser_states`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.ast.core import Decl, Expr, Node, TypeRef
from p4emu.lang.ast.parser_states import StateDecl
from p4emu.lang.ast.statements import Block


@dataclass(eq=False)
class Param(Decl):
    direction: str  # "", in, out, inout
    type: TypeRef
    default: Expr | None = None


@dataclass(eq=False)
class FieldDecl(Decl):
    type: TypeRef


@dataclass(eq=False)
class TypedefDecl(Decl):
    type: TypeRef
    new_type: bool


@dataclass(eq=False)
class HeaderDecl(Decl):
    kind: str  # header, struct, header_union
    fields: list[FieldDecl]
    type_params: list[str] = field(default_factory=list)


@dataclass(eq=False)
class EnumDecl(Decl):
    underlying: TypeRef | None
    members: list[tuple[str, Expr | None]]


@dataclass(eq=False)
class ErrorDecl(Decl):
    members: list[str]


@dataclass(eq=False)
class MatchKindDecl(Decl):
    members: list[str]


@dataclass(eq=False)
class MethodDecl(Decl):
    ret: TypeRef | None  # None: constructor
    type_params: list[str]
    params: list[Param]
    is_abstract: bool = False


@dataclass(eq=False)
class ExternDecl(Decl):
    type_params: list[str]
    methods: list[MethodDecl]


@dataclass(eq=False)
class ExternFuncDecl(Decl):
    ret: TypeRef
    type_params: list[str]
    params: list[Param]


@dataclass(eq=False)
class FunctionDecl(Decl):
    ret: TypeRef
    type_params: list[str]
    params: list[Param]
    body: Block


@dataclass(eq=False)
class ActionDecl(Decl):
    params: list[Param]
    body: Block


@dataclass(eq=False)
class ValueSetDecl(Decl):
    type: TypeRef
    size: Expr


@dataclass(eq=False)
class ParserDecl(Decl):
    type_params: list[str]
    params: list[Param]
    ctor_params: list[Param]
    locals: list[Decl]
    states: list[StateDecl]


@dataclass(eq=False)
class ControlDecl(Decl):
    type_params: list[str]
    params: list[Param]
    ctor_params: list[Param]
    locals: list[Decl]
    body: Block


@dataclass(eq=False)
class BlockTypeDecl(Decl):
    """`parser P<...>(...);`, `control C<...>(...);` or `package Pkg<...>(...);`."""

    kind: str
    type_params: list[str]
    params: list[Param]


@dataclass(eq=False)
class Program(Node):
    decls: list[Decl]
