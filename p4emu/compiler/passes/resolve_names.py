"""Name resolution, a pass of its own before type checking: it walks the AST once and
binds names to what they denote, recording each binding by the id of the AST node that
holds the reference (`NameResolution`); the checker reads the recorded bindings instead
of looking the names up.

What it covers, completely, are these namespaces:

- parser-state names. Each parser's states (`ParserStates`): the state table, and every
  transition target, direct (`transition s;`, keyed by the `Transition`) or of a select
  case (keyed by the `SelectCase`), bound to its `StateDecl` or to a built-in state
  (accept, reject). P4 exempts parser states from declare-before-use (a transition may go
  to a state declared after it) and no other declaration can hide one.
- match-kind names, in table keys (the only place the checker reads them), keyed by the
  `KeyElement`, bound to their `match_kind` declaration. Tables are declared only in
  controls, which are checked after every top-level declaration (`check_program.py`), so
  a key sees every match kind of the program, wherever it is declared.
- type names (`resolve_type_names.py`): every named type reference (`TName`), keyed by
  the `TName`, bound by position to the top-level declaration it denotes there, with the
  checker's rules for hiding, forward externs and packet_in/packet_out; so a type used
  before its declaration is refused wherever it is used, also inside declarations the
  checker checks late or never (a control, an extern's methods, an unused function).
- action and instance names in tables (`resolve_table_names.py`): the actions a table
  lists, its default action and its entries' actions, keyed by the `ActionRefSyntax`, and
  the instance its implementation, counters or meters property names, keyed by the
  `Path`, bound to a declaration of the control (its constructor parameters, parameters,
  the locals before the table) or else to the top-level one before the control.

What it leaves to the checker's scopes (`scope.Scope` lookups while checking):

- type parameters (what each stands for differs per specialization of its generic
  declaration, so the checker's scopes bind them: the pass marks them `TYPE_VARIABLE`)
  and names declared inside blocks that shadow a type's name (the checker looks a type
  name up in its block's scopes before reading the pass's binding);
- the names of values and objects in expressions and statements (variables, constants,
  actions, tables and instances called or applied, functions, extern functions, enum and
  error members), switch labels, value sets in select keysets, and main's arguments. The
  checker resolves those in the scopes it builds as it checks statements in order, and
  an action's body sees its control's scope as it is when the action is first used (a
  table listing it sees the locals before the table, the apply block all of them), not
  where the action is declared: binding them here would change what such a body sees,
  and with it verdicts, unless the pass reproduced the checker's order of first uses.
  A function called from a constant's initializer is likewise checked then, seeing only
  the error members declared so far. The implicit `NoAction` of a table without a
  default action is looked up in the global scope by name, as v1model's.

Verdicts do not change because errors are recorded, not raised, here: the checker raises
a recorded error where it used to look the name up (a parser's state table when the
parser's states are checked, after its locals; a target after its case's keysets, and the
targets of the cases after one that matches anything, which are never reached, after the
reached ones; a match kind after its key's expression; a type name where the type is
resolved), so a program with two errors still reports the same one first. A type name in
a type position that the checker never read (in code nothing checks) is reported after
everything else is checked (`TypeNames.first_unread_error`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p4emu.compiler.passes.resolve_table_names import TableNameRef, resolve_table_names
from p4emu.compiler.passes.resolve_type_names import TypeNames, resolve_type_names
from p4emu.compiler.passes.unresolved import Unresolved
from p4emu.lang import ast as A

BUILTIN_STATES = ("accept", "reject")


@dataclass(frozen=True)
class StateRef:
    """What a transition target denotes."""

    name: str
    state: A.StateDecl | None  # None: accept or reject (built in)


@dataclass(eq=False)
class ParserStates:
    """One parser's states and the binding of each of its transition targets."""

    decl: A.ParserDecl
    states: dict[str, A.StateDecl] = field(default_factory=dict)
    error: Unresolved | None = None
    """The state table's first error (a built-in state implemented, a duplicate state, no
    start state), raised when the parser's states are checked."""
    targets: dict[int, StateRef | Unresolved] = field(default_factory=dict)
    """id(Transition or SelectCase) -> the state it goes to, or the error naming it."""

    def target(self, node: A.Transition | A.SelectCase) -> StateRef:
        """The state `node` goes to; raises its recorded error (an undeclared state)."""
        ref = self.targets[id(node)]
        if isinstance(ref, Unresolved):
            ref.raise_()
        return ref

    def successors(self, s: A.StateDecl) -> list[StateRef | Unresolved]:
        """The bindings of `s`'s transition targets, in source order."""
        tr = s.transition
        if tr is None:
            return []
        nodes = [tr] if tr.select is None else tr.cases
        return [self.targets[id(n)] for n in nodes]


@dataclass(eq=False)
class NameResolution:
    """The recorded bindings of one program (`resolve_names`)."""

    parsers: dict[int, ParserStates] = field(default_factory=dict)
    """id(ParserDecl) -> its states."""
    match_kinds: dict[str, A.MatchKindDecl] = field(default_factory=dict)
    """The program's match kinds: name -> its (first) declaration."""
    keys: dict[int, A.MatchKindDecl | Unresolved] = field(default_factory=dict)
    """id(table KeyElement) -> the declaration of its match kind, or the error naming it."""
    types: TypeNames = field(default_factory=TypeNames)
    """The binding of each type name (`resolve_type_names.py`)."""
    table_names: dict[int, TableNameRef] = field(default_factory=dict)
    """id(ActionRefSyntax or table property Path) -> the declaration its name denotes, None
    for none (`resolve_table_names.py`)."""

    def parser(self, decl: A.ParserDecl) -> ParserStates:
        """`decl`'s states."""
        return self.parsers[id(decl)]

    def match_kind(self, ke: A.KeyElement) -> A.MatchKindDecl:
        """The declaration of table key `ke`'s match kind; raises its recorded error (an
        unknown match kind)."""
        ref = self.keys[id(ke)]
        if isinstance(ref, Unresolved):
            ref.raise_()
        return ref

    def _bind_key(self, ke: A.KeyElement) -> A.MatchKindDecl | Unresolved:
        d = self.match_kinds.get(ke.match_kind)
        return d if d is not None else Unresolved(ke.loc, f"{ke.match_kind}: unknown match kind")


def resolve_names(program: A.Program) -> NameResolution:
    """The pass: the bindings of the names it covers in `program`."""
    res = NameResolution(types=resolve_type_names(program))
    for d in program.decls:
        if isinstance(d, A.MatchKindDecl):
            for m in d.members:
                res.match_kinds.setdefault(m, d)
    for d in program.decls:
        if isinstance(d, A.ParserDecl):
            res.parsers[id(d)] = resolve_parser_states(d)
        elif isinstance(d, A.ControlDecl) and id(d) in res.types.at_control:
            res.table_names.update(resolve_table_names(d, res.types.at_control[id(d)]))
        for local in getattr(d, "locals", ()):  # tables: in controls (parsers refuse them)
            if isinstance(local, A.TableDecl):
                for ke in _table_keys(local):
                    res.keys[id(ke)] = res._bind_key(ke)
    return res


def _table_keys(t: A.TableDecl) -> list[A.KeyElement]:
    return [ke for p in t.properties if p.name == "key" and isinstance(p.value, list) for ke in p.value]


def resolve_parser_states(decl: A.ParserDecl) -> ParserStates:
    ps = ParserStates(decl)
    for st in decl.states:
        if ps.error is not None:
            break
        if st.name in BUILTIN_STATES:
            ps.error = Unresolved(st.loc, f"parser state {st.name} is built in and cannot be implemented")
        elif st.name in ps.states:
            ps.error = Unresolved(st.loc, f"{st.name}: duplicate parser state")
        else:
            ps.states[st.name] = st
    if ps.error is None and "start" not in ps.states:
        ps.error = Unresolved(decl.loc, f"parser {decl.name} has no start state")
    for st in decl.states:
        tr = st.transition
        if tr is None:
            continue
        for node in [tr] if tr.select is None else tr.cases:
            ps.targets[id(node)] = _bind(node.state, ps.states, node.loc)
    return ps


def _bind(name: str, states: dict[str, A.StateDecl], loc) -> StateRef | Unresolved:
    if name in BUILTIN_STATES:
        return StateRef(name, None)
    if name not in states:
        return Unresolved(loc, f"{name}: no such parser state")
    return StateRef(name, states[name])
