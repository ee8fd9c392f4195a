"""Syntax tree of P4_16 programs, used as `from p4emu.lang import ast as A`, then `A.Member`.

One module per family of nodes; this package gathers them under one name:

- `core`: `Node`, annotations, and the roots `TypeRef`, `Expr`, `Stmt` and `Decl` (the
  families refer to each other, their roots are what the others' fields name)
- `type_refs`: types as written (`bit<8>`, `H[4]`, `T<U>`)
- `expressions`: expressions, call arguments and keysets
- `statements`: statements, and the declarations that are statements too
- `declarations`: parameters, type, extern, function, action, parser and control
  declarations, and the `Program`
- `tables`, `parser_states`: the parts of control and parser bodies

Expression nodes get `ty` (a `types.Type`) and, for names, `ref` (the declaration or
binding they resolve to) filled in by the checker; the code generator reads both.
"""

from p4emu.lang.ast.core import Annotation, Decl, Expr, Node, Stmt, TypeRef, find_annotation
from p4emu.lang.ast.declarations import (
    ActionDecl,
    BlockTypeDecl,
    ControlDecl,
    EnumDecl,
    ErrorDecl,
    ExternDecl,
    ExternFuncDecl,
    FieldDecl,
    FunctionDecl,
    HeaderDecl,
    MatchKindDecl,
    MethodDecl,
    Param,
    ParserDecl,
    Program,
    TypedefDecl,
    ValueSetDecl,
)
from p4emu.lang.ast.expressions import (
    Arg,
    Binary,
    BoolLit,
    Call,
    Cast,
    DefaultKey,
    DefaultValue,
    DontCare,
    Index,
    IntLit,
    InvalidHeader,
    ListExpr,
    Mask,
    Member,
    Path,
    Range,
    Slice,
    StrLit,
    StructExpr,
    Ternary,
    TypeExpr,
    Unary,
)
from p4emu.lang.ast.parser_states import SelectCase, StateDecl, Transition
from p4emu.lang.ast.statements import (
    Assign,
    Block,
    Break,
    CallStmt,
    Continue,
    Empty,
    Exit,
    For,
    If,
    InstanceDecl,
    Return,
    Switch,
    SwitchCase,
    VarDecl,
)
from p4emu.lang.ast.tables import ActionRefSyntax, EntrySyntax, KeyElement, TableDecl, TableProperty
from p4emu.lang.ast.type_refs import TBase, TBits, TName, TStack, TTuple

__all__ = [
    # core
    "Annotation", "Decl", "Expr", "Node", "Stmt", "TypeRef", "find_annotation",
    # type_refs
    "TBase", "TBits", "TName", "TStack", "TTuple",
    # expressions
    "Arg", "Binary", "BoolLit", "Call", "Cast", "DefaultKey", "DefaultValue", "DontCare",
    "Index", "IntLit", "InvalidHeader", "ListExpr", "Mask", "Member", "Path", "Range", "Slice",
    "StrLit", "StructExpr", "Ternary", "TypeExpr", "Unary",
    # statements
    "Assign", "Block", "Break", "CallStmt", "Continue", "Empty", "Exit", "For", "If",
    "InstanceDecl", "Return", "Switch", "SwitchCase", "VarDecl",
    # declarations
    "ActionDecl", "BlockTypeDecl", "ControlDecl", "EnumDecl", "ErrorDecl", "ExternDecl",
    "ExternFuncDecl", "FieldDecl", "FunctionDecl", "HeaderDecl", "MatchKindDecl", "MethodDecl",
    "Param", "ParserDecl", "Program", "TypedefDecl", "ValueSetDecl",
    # tables
    "ActionRefSyntax", "EntrySyntax", "KeyElement", "TableDecl", "TableProperty",
    # parser_states
    "SelectCase", "StateDecl", "Transition",
]
