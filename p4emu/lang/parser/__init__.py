"""Recursive-descent parser for P4_16: `parse(tokens)` gives the `ast.Program`.

The parser is one class built in layers, one module each, every layer a subclass of the
one below, whose methods it calls:

- `tokens.TokenParser`: the token cursor and the type-name symbol table (pre-filled by
  `type_names`)
- `annotations.AnnotationParser`: annotations
- `type_refs.TypeParser`: types, type-parameter and parameter lists
- `expressions.ExprParser`: expressions, arguments and keysets (types and expressions
  contain each other: `TypeParser` names the two methods of this layer it calls)
- `statements.StmtParser`: statements and local variable/instance declarations
- `blocks.BlockParser`: parser and control bodies: actions, tables, parser states
- `declarations.DeclParser`: top-level declarations and the program
"""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.lexer import Token
from p4emu.lang.parser.declarations import DeclParser


class Parser(DeclParser):
    """The whole parser: the top layer and all below it."""


def parse(toks: list[Token]) -> A.Program:
    return Parser(toks).program()
