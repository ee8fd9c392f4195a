"""Checking a piece of a program (an expression, a statement) as the compiler checks code
inside a whole program: `ProgramFragments`, the entry point of the tests of one pass.

The checker's passes assume a whole program: the name-resolution pass (`resolve_names`)
has seen every name the checker reads, the top-level declarations are declared before any
code is checked (`check_program`), and each construct is checked as a unit that checks
what it uses (an action, a function) after it (`check_blocks`). `ProgramFragments` gives a
fragment that context instead of the passes taking shortcuts for it: it declares a
program's top-level declarations as `check_program` does, wraps each fragment into that
program (in a function declared after the rest, so the fragment sees every top-level
declaration, as the code of a control does), runs the resolution pass over the program
with it, and checks the fragment as a unit, in a scope of variables the caller binds.
"""

from __future__ import annotations

from p4emu.compiler.passes.check_statements import Body
from p4emu.compiler.passes.resolve_names import resolve_names
from p4emu.compiler.program import ProgramGen
from p4emu.compiler.scope import Binding, Scope
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.lang import ast as A
from p4emu.lang.lexer import tokenize
from p4emu.lang.parser import Parser, parse
from p4emu.lang.preprocess import SourceLine
from p4emu.lang.types import Type

FILE = "t.p4"  # the file name fragments and their programs are reported in


def parse_program(text: str, file: str = FILE) -> A.Program:
    """P4 source `text` as `file` (line 1 first), parsed without preprocessing."""
    return parse(tokenize([SourceLine(file, i + 1, line) for i, line in enumerate(text.splitlines())]))


def parse_expr(text: str, file: str = FILE) -> A.Expr:
    """An expression on line 1 of `file`."""
    return Parser(tokenize([SourceLine(file, 1, text)])).expression()


def parse_stmt(text: str, file: str = FILE) -> A.Stmt:
    """A statement on line 1 of `file`."""
    return Parser(tokenize([SourceLine(file, 1, text)])).statement()


class ProgramFragments:
    """The top-level declarations of a program, declared, and fragments checked after them.

    `gen` is the emitter (`ProgramGen`) with its `checker`; `program` the declarations;
    `scope` the scope fragments are checked in (the global scope's child: bind the
    variables a fragment reads with `bind`)."""

    def __init__(self, declarations: str = "", file: str = FILE) -> None:
        self.file = file
        self.program = parse_program(declarations, file)
        self.gen = ProgramGen(self.program)
        self.checker = self.gen.checker
        bindings, _ = self.checker.declare_program(self.program)
        for b in bindings:  # as `ProgramGen.emit_program` does first
            self.gen.emit_global(b)
        self.scope = Scope(self.gen.global_scope)
        self._wrappers: list[A.FunctionDecl] = []

    def bind(self, name: str, binding: Binding) -> None:
        self.scope.bind(name, binding)

    def expr(self, fragment: str | A.Expr, want: Type | None = None,
             scope: Scope | None = None) -> I.Expr:
        """The typed IR of expression `fragment` (text on line 1, or parsed), of type `want`
        when given."""
        e = parse_expr(fragment, self.file) if isinstance(fragment, str) else fragment
        self._resolve(A.Return(e.loc, e))
        return self.checker.blocks.check_unit(self.checker.exprs.check, e, scope or self.scope, want)

    def stmt(self, fragment: str | A.Stmt, body: Body, scope: Scope | None = None) -> S.Stmt:
        """The typed IR of statement `fragment` (text on line 1, or parsed) in a `body` of
        a parser, control, action or function."""
        s = parse_stmt(fragment, self.file) if isinstance(fragment, str) else fragment
        self._resolve(s)
        return self.checker.blocks.check_unit(self.checker.stmts.check, s, scope or self.scope, body)

    def _resolve(self, stmt: A.Stmt) -> None:
        """Run the resolution pass again over the program with `stmt` in it, last."""
        loc = stmt.loc
        name = f"__fragment_{len(self._wrappers)}__"
        self._wrappers.append(A.FunctionDecl(loc, name, A.TBase(loc, "void"), [], [],
                                             A.Block(loc, [stmt])))
        names = resolve_names(A.Program(self.program.loc, [*self.program.decls, *self._wrappers]))
        env = self.checker.env
        # the built-in externs' placeholders are new objects: they denote what the first
        # run's did (`declare_program` bound those)
        for builtin, placeholder in names.types.placeholders.items():
            first = env.names.types.placeholders[builtin]
            env.decl_bindings[id(placeholder)] = env.decl_bindings[id(first)]
        env.names = names
