"""Syntax tree of P4_16 programs.

Expression nodes get `ty` (a `types.Type`) and, for names, `ref` (the declaration or
binding they resolve to) filled in by the checker; the code generator reads both.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.lang.errors import Loc


@dataclass(eq=False)
class Node:
    loc: Loc


@dataclass(eq=False)
class Annotation:
    name: str
    body: list  # tokens between the parentheses (or [])
    loc: Loc

    def string(self) -> str | None:
        for t in self.body:
            if t.kind == "str":
                return t.value
        return None

    def integer(self) -> int | None:
        sign = 1
        for t in self.body:
            if t.text == "-":
                sign = -1
            if t.kind == "num":
                return sign * t.value[0]
        return None


def find_annotation(annos: list[Annotation], name: str) -> Annotation | None:
    for a in annos:
        if a.name == name:
            return a
    return None


# -- syntactic types --------------------------------------------------------------------
@dataclass(eq=False)
class TypeRef(Node):
    pass


@dataclass(eq=False)
class TBase(TypeRef):
    name: str  # bool, error, string, void, match_kind, int (infint), _ (dontcare)


@dataclass(eq=False)
class TBits(TypeRef):
    width: Expr | None
    signed: bool
    varbit: bool = False


@dataclass(eq=False)
class TName(TypeRef):
    name: str
    args: list[TypeRef] = field(default_factory=list)
    is_global: bool = False


@dataclass(eq=False)
class TTuple(TypeRef):
    args: list[TypeRef]


@dataclass(eq=False)
class TStack(TypeRef):
    elem: TypeRef
    size: Expr


# -- expressions ------------------------------------------------------------------------
@dataclass(eq=False)
class Expr(Node):
    def __post_init__(self):
        self.ty = None
        self.ref = None
        self.const = None  # compile-time value when known


@dataclass(eq=False)
class IntLit(Expr):
    value: int
    width: int | None
    signed: bool
    base: int = 10  # as written (p4c prints key names with it)


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class StrLit(Expr):
    value: str


@dataclass(eq=False)
class Path(Expr):
    name: str
    is_global: bool = False


@dataclass(eq=False)
class TypeExpr(Expr):
    """A type used in expression position: `E.member`, `error.X`, `T(args)` constructors."""

    type: TypeRef


@dataclass(eq=False)
class Member(Expr):
    expr: Expr
    name: str


@dataclass(eq=False)
class Index(Expr):
    expr: Expr
    index: Expr


@dataclass(eq=False)
class Slice(Expr):
    expr: Expr
    hi: Expr
    lo: Expr


@dataclass(eq=False)
class Arg(Node):
    name: str | None
    value: Expr | None  # None: `_` don't-care argument


@dataclass(eq=False)
class Call(Expr):
    func: Expr
    type_args: list[TypeRef]
    args: list[Arg]


@dataclass(eq=False)
class Unary(Expr):
    op: str
    expr: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(eq=False)
class Cast(Expr):
    type: TypeRef
    expr: Expr


@dataclass(eq=False)
class ListExpr(Expr):
    items: list[Expr]
    rest_default: bool = False  # trailing `...`: remaining fields take default values


@dataclass(eq=False)
class StructExpr(Expr):
    fields: list[tuple[str, Expr]]
    type: TypeRef | None = None
    rest_default: bool = False  # trailing `...`: remaining fields take default values


@dataclass(eq=False)
class DontCare(Expr):
    pass


@dataclass(eq=False)
class InvalidHeader(Expr):
    """`{#}`: an invalid header or header union."""


@dataclass(eq=False)
class DefaultValue(Expr):
    """`...`: the default value of the whole expected type."""


@dataclass(eq=False)
class DefaultKey(Expr):
    pass


@dataclass(eq=False)
class Mask(Expr):
    value: Expr
    mask: Expr


@dataclass(eq=False)
class Range(Expr):
    low: Expr
    high: Expr


# -- statements -------------------------------------------------------------------------
@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Block(Stmt):
    stmts: list[Stmt]
    annotations: list[Annotation] = field(default_factory=list)


@dataclass(eq=False)
class Assign(Stmt):
    lhs: Expr
    rhs: Expr


@dataclass(eq=False)
class CallStmt(Stmt):
    call: Call


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Stmt
    other: Stmt | None


@dataclass(eq=False)
class SwitchCase(Node):
    labels: list[Expr]  # DefaultKey for default
    body: Block | None  # None: falls through to the next case


@dataclass(eq=False)
class Switch(Stmt):
    expr: Expr
    cases: list[SwitchCase]


@dataclass(eq=False)
class Exit(Stmt):
    pass


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class For(Stmt):
    """`for (init; cond; update) body` or, with `var`, `for (T x in iterable) body`."""

    init: list[Stmt]
    cond: Expr | None
    update: list[Stmt]
    body: Stmt
    var: VarDecl | None = None
    iterable: Expr | None = None


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class Empty(Stmt):
    pass


# -- declarations -----------------------------------------------------------------------
@dataclass(eq=False)
class Decl(Node):
    name: str

    def __post_init__(self):
        self.annotations: list[Annotation] = []


@dataclass(eq=False)
class VarDecl(Decl, Stmt):
    type: TypeRef
    init: Expr | None
    is_const: bool = False


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
class InstanceDecl(Decl, Stmt):
    type: TypeRef
    args: list[Arg]


@dataclass(eq=False)
class ValueSetDecl(Decl):
    type: TypeRef
    size: Expr


@dataclass(eq=False)
class TableProperty(Node):
    name: str
    value: object  # Expr, list[KeyElement], list[ActionRefSyntax], list[EntrySyntax]
    is_const: bool
    annotations: list[Annotation] = field(default_factory=list)


@dataclass(eq=False)
class KeyElement(Node):
    expr: Expr
    match_kind: str
    annotations: list[Annotation]


@dataclass(eq=False)
class ActionRefSyntax(Node):
    name: str
    args: list[Arg]
    annotations: list[Annotation]
    is_global: bool = False


@dataclass(eq=False)
class EntrySyntax(Node):
    keys: list[Expr]
    action: ActionRefSyntax
    annotations: list[Annotation]
    priority: Expr | None = None


@dataclass(eq=False)
class TableDecl(Decl):
    properties: list[TableProperty]


@dataclass(eq=False)
class SelectCase(Node):
    keys: list[Expr]  # one per select expression (a single DefaultKey/DontCare allowed)
    state: str


@dataclass(eq=False)
class Transition(Node):
    select: list[Expr] | None  # None: direct transition
    state: str | None
    cases: list[SelectCase] = field(default_factory=list)


@dataclass(eq=False)
class StateDecl(Decl):
    stmts: list[Stmt]
    transition: Transition | None


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
