"""`p4emu.lang.ast` and `p4emu.lang.parser` are packages of several modules; the rest of
p4emu reads them through the package (`from p4emu.lang import ast as A`, then `A.Member`),
so the package must offer every node class its modules define."""

import importlib
import inspect
import pkgutil

from p4emu.lang import ast as A
from p4emu.lang.lexer import tokenize
from p4emu.lang.parser import Parser, parse
from p4emu.lang.preprocess import SourceLine


def _defined_in(package) -> dict[str, object]:
    names = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and obj.__module__ == module.__name__:
                names[name] = obj
    return names


def test_the_ast_package_exports_every_node_class_of_its_modules():
    defined = _defined_in(A)
    assert "Member" in defined and "StateDecl" in defined and "find_annotation" in defined
    assert sorted(A.__all__) == sorted(defined)
    assert all(getattr(A, name) is obj for name, obj in defined.items())


def test_the_parser_layers_form_one_class():
    # each layer calls the methods of those below it; the two that types call on
    # expressions are defined by the expression layer
    layers = [c.__name__ for c in Parser.__mro__]
    assert layers[:8] == ["Parser", "DeclParser", "BlockParser", "StmtParser", "ExprParser",
                          "TypeParser", "AnnotationParser", "TokenParser"]
    assert Parser.expression.__qualname__ == "ExprParser.expression"
    assert Parser.primary.__qualname__ == "ExprParser.primary"


def test_parse_builds_nodes_of_the_split_modules():
    src = ("const bit<8> W = 8;\n"
           "control C(inout bit<8> x) { apply { if (x == W) { x = x + 1; } } }\n")
    lines = [SourceLine("t.p4", n, text) for n, text in enumerate(src.splitlines(keepends=True), 1)]
    prog = parse(tokenize(lines))
    const, control = prog.decls
    assert isinstance(const, A.VarDecl) and isinstance(const.type, A.TBits)
    assert (const.name, const.is_const, const.type.width.value, const.init.value) == ("W", True, 8, 8)
    assert isinstance(control, A.ControlDecl)
    assert control.name == "C"
    assert [(p.name, p.direction, p.type.width.value) for p in control.params] == [("x", "inout", 8)]
    stmt = control.body.stmts[0]
    assert isinstance(stmt, A.If) and isinstance(stmt.cond, A.Binary)
    cond = stmt.cond
    assert (cond.op, cond.left.name, cond.right.name, (cond.loc.line, cond.loc.col)) == ("==", "x", "W", (2, 43))
    [assign] = stmt.then.stmts
    assert isinstance(assign, A.Assign) and assign.lhs.name == "x"
    assert (assign.rhs.op, assign.rhs.left.name, assign.rhs.right.value) == ("+", "x", 1)
