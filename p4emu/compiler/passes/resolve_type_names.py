"""Type names, part of the name-resolution pass (`resolve_names.py`): each named type
reference (`A.TName`, wherever it stands: a typedef, a field, a parameter, a local, a
cast, a constructor, a type argument) bound to the top-level declaration it denotes at
its place in the program, keyed by the id of the `TName`.

p4c resolves names by position (declare-before-use): a reference sees the top-level
declarations that precede it. The pass walks the program's declarations in order keeping
the top-level namespace as the checker's global scope has it when it declares each one
(`declare_globals.py`), and binds each reference to the declaration the name denotes
there, or records "unknown type" when none does:

- a later declaration of another kind hides an earlier one from then on; one of the same
  kind is the checker's duplicate-declaration error (only extern functions overload);
- a forward `extern Name;` stands until Name is declared (and is ignored once it is);
  packet_in and packet_out are placeholders until core.p4 declares them;
- the references inside a typedef, an enum, a constant or an instance see the namespace
  before the declaration (the checker resolves them before binding its name); those in a
  struct, header, union, extern, function, action, parser, control or package type see it
  with the declaration (it is bound first: a struct field may name its own type);
- the references inside a declaration the checker checks later (a parser's or control's
  parameters and body, a function or action body, an extern's methods, a generic
  struct's fields, specialized on first use) are bound at the declaration too, as p4c
  binds them: a type declared only after the declaration is unknown there.

A reference bound to a declaration that a later one replaced (a forward declaration, a
placeholder, a declaration hidden by one of another kind) denotes the later one when the
checker reads it after declaring that (`GlobalEnv.decl_bindings`): the checker reads the
references in parsers, controls and what they use after every top-level declaration,
and sees there, as before the pass, the last declaration of a name declared before them.

A name that is a type parameter of an enclosing generic declaration is a
`TYPE_VARIABLE`: what it stands for differs per specialization, so the checker's scopes
keep it (they bind each one to its type argument). A name declared inside a parser,
control, action or function (a variable shadowing a type's name) is not known here
either: the checker looks the name up in its block's scopes first and only reads the
binding recorded here for a name none of them declares.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from p4emu.compiler.passes.unresolved import Unresolved
from p4emu.lang import ast as A

BUILTIN_EXTERNS = ("packet_in", "packet_out")  # usable before core.p4 declares them


@dataclass(eq=False)
class Placeholder:
    """A built-in extern's name until core.p4 declares it (the checker's placeholder type)."""

    name: str


class _TypeVariable:
    def __repr__(self) -> str:
        return "TYPE_VARIABLE"


TYPE_VARIABLE = _TypeVariable()
"""The binding of a type parameter of an enclosing generic declaration."""

TypeNameRef = A.Decl | Placeholder | _TypeVariable | Unresolved

# the declarations that bind no name in the top-level namespace
_NAMELESS = (A.ErrorDecl, A.MatchKindDecl)
# the declarations whose references the checker resolves before binding their name
_RESOLVED_BEFORE_BINDING = (A.TypedefDecl, A.EnumDecl, A.VarDecl, A.InstanceDecl)
# the declarations that declare a type (a reference to any other is "unknown type")
TYPE_DECLS = (A.TypedefDecl, A.HeaderDecl, A.EnumDecl, A.ExternDecl, A.ParserDecl,
              A.ControlDecl, A.BlockTypeDecl, Placeholder)
# the checker declares only these at top level (anything else is its "unsupported" error)
_DECLARED = (A.ErrorDecl, A.MatchKindDecl, A.TypedefDecl, A.HeaderDecl, A.EnumDecl, A.VarDecl,
             A.ExternDecl, A.ExternFuncDecl, A.ActionDecl, A.FunctionDecl, A.ParserDecl,
             A.ControlDecl, A.BlockTypeDecl, A.InstanceDecl)
_OVERLOADABLE = (A.ExternFuncDecl, A.ErrorDecl, A.MatchKindDecl)


@dataclass(eq=False)
class TypeNames:
    """The binding of each type name of one program."""

    placeholders: dict[str, Placeholder] = field(
        default_factory=lambda: {n: Placeholder(n) for n in BUILTIN_EXTERNS})
    refs: dict[int, TypeNameRef] = field(default_factory=dict)
    """id(TName) -> what it denotes."""
    declared_types: list[A.TName] = field(default_factory=list)
    """The references in type positions (not in expressions, where the parser makes a
    TName of any name declared as a type anywhere), in source order."""
    read: set[int] = field(default_factory=set)
    """id(TName)s the checker has read."""
    at_control: dict[int, dict[str, A.Decl | Placeholder]] = field(default_factory=dict)
    """id(ControlDecl) -> the top-level namespace there (name -> declaration), for the
    names its tables use (`resolve_table_names.py`)."""

    def get(self, tr: A.TName) -> TypeNameRef:
        """What `tr` denotes, noted as read. The pass has seen every reference of the
        program (a fragment is checked inside one: `p4emu.compiler.fragments`)."""
        self.read.add(id(tr))
        return self.refs[id(tr)]

    def first_unread_error(self) -> Unresolved | None:
        """The first reference in a type position that names no type and that the checker
        never read: in code nothing checks (an unused action, function, extern method or
        package type), which p4c resolves all the same."""
        for tr in self.declared_types:
            if id(tr) in self.read:
                continue
            ref = self.refs[id(tr)]
            if isinstance(ref, Unresolved):
                return ref
            if ref is not TYPE_VARIABLE and not isinstance(ref, TYPE_DECLS):
                return Unresolved(tr.loc, f"{tr.name}: unknown type")
        return None


def resolve_type_names(program: A.Program) -> TypeNames:
    names = TypeNames()
    _Walk(names).program(program)
    return names


class _Walk:
    def __init__(self, names: TypeNames):
        self.names = names
        self.visible: dict[str, A.Decl | Placeholder] = dict(names.placeholders)
        self.kinds: dict[str, type] = {}
        """Top-level name -> the class of its declaration (the checker's `global_kinds`)."""

    def program(self, program: A.Program) -> None:
        for d in program.decls:
            if isinstance(d, A.InstanceDecl) and d.name == "main":  # the checker declares no main
                self.refs_in(d)
            elif not self.declare(d):
                return  # the checker stops at this declaration's error

    def declare(self, d: A.Decl) -> bool:
        """Mirror of `GlobalDeclarer.declare_global`; False where it raises."""
        if getattr(d, "forward", False):
            if d.name not in self.kinds:
                self.visible[d.name] = d
            return True
        if getattr(self.visible.get(d.name), "forward", False):
            del self.visible[d.name]
        prev = self.kinds.get(d.name)
        if prev is type(d) and not isinstance(d, _OVERLOADABLE):
            return False
        if prev is not None and prev is not type(d):
            self.visible.pop(d.name, None)
        if not isinstance(d, _DECLARED):
            return False
        self.kinds[d.name] = type(d)
        if isinstance(d, _RESOLVED_BEFORE_BINDING):
            self.refs_in(d)
        if not isinstance(d, _NAMELESS):
            self.visible[d.name] = d
        if not isinstance(d, _RESOLVED_BEFORE_BINDING):
            self.refs_in(d)
        if isinstance(d, A.ControlDecl):
            self.names.at_control[id(d)] = dict(self.visible)
        return True

    def refs_in(self, node, type_params: frozenset = frozenset(), in_expr: bool = False) -> None:
        """Bind every TName under `node` against the namespace as it is now."""
        if isinstance(node, (list, tuple)):
            for item in node:
                self.refs_in(item, type_params, in_expr)
            return
        if not isinstance(node, A.Node):
            return
        if isinstance(node, A.TName):
            self.bind(node, type_params, in_expr)
        params = getattr(node, "type_params", None)
        if params:
            type_params = type_params | frozenset(params)
        in_expr = in_expr or isinstance(node, A.TypeExpr)
        for f in _node_fields(type(node)):
            self.refs_in(getattr(node, f), type_params, in_expr)

    def bind(self, tr: A.TName, type_params: frozenset, in_expr: bool) -> None:
        if not tr.is_global and tr.name in type_params:
            ref = TYPE_VARIABLE
        else:
            ref = self.visible.get(tr.name)
            if ref is None:
                ref = Unresolved(tr.loc, f"{tr.name}: unknown type")
        self.names.refs[id(tr)] = ref
        if not in_expr:
            self.names.declared_types.append(tr)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(cls: type) -> tuple[str, ...]:
    """The fields of AST class `cls` that may hold nodes (not names, flags or locations)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls)
                                     if f.name not in ("loc", "name", "type_params"))
    return names
