"""What the compiler produces (`GeneratedProgram`), the tables it consults while it walks
the program (`GlobalEnv`), where in the program the walk is (`WalkContext`), the
`CompileState` holding them that the checker's passes (`checker.ProgramChecker`) and then
the emitter's (`program.ProgramGen`) share, and what a pass is (`CompilePass`: the shared
state and the other passes it calls, set by its driver, `connect_passes`).

`out` is what later stages read (the generated Python module, `module_source()`; the
control-plane object lists `lower_control_plane` turns into the typed
`p4emu.ir.ControlPlane`; the `bindings` the Pipeline binds), `env` and `walk` are used only
while compiling.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from p4emu.compiler.passes.resolve_names import NameResolution
from p4emu.compiler.scope import ActionB, Binding, BlockFrame, Scope
from p4emu.compiler.structs import struct_module_source
from p4emu.ir import blocks as B
from p4emu.lang import ast as A
from p4emu.lang.types import EnumT, StructT, Type


def empty_objects() -> dict[str, list | dict]:
    return {"tables": [], "actions": {}, "registers": [], "counters": [], "meters": [],
            "action_profiles": [], "value_sets": []}


@dataclass(eq=False)
class BlockCtx:
    """A parser or control instance as the emitter generated it (`blocks.BlockEmitter`)."""

    kind: str
    name: str  # prefix of fully qualified names
    sig: str = ""
    frame: str = ""
    frame_fields: list[tuple[str, str]] = field(default_factory=list)
    prologue: list[str] = field(default_factory=list)
    params: list[tuple[B.Parameter, Type, str]] = field(default_factory=list)
    apply_py: str = ""
    # tables applied by this block's body, directly or through its sub-blocks (p4c inlines
    # a sub-block at each apply, so applying the instance twice applies these twice)
    applied_tables: list[str] = field(default_factory=list)
    body: object = None  # a control's apply body as typed IR (`p4emu.ir.statements.Block`)
    outs: list[str] = field(default_factory=list)  # scalar out/inout results of its apply


@dataclass(eq=False)
class GeneratedProgram:
    """The generator's results. A parser or control that main does not use is type-checked
    into a `scratch()` copy, so its code and control-plane objects are dropped."""

    code: list[str] = field(default_factory=list)
    """Generated Python lines: frame classes, apply, parser-state, action, table-apply and
    dispatch-wrapper functions, direct-meter writers."""
    bindings: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Module-level name (`TBL_n`, `REG_n`, ...) -> (object kind, full name), bound by the
    Pipeline to a DeviceState's objects."""
    dispatch_tables: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    """(dispatch dict name `TD_n`, [(action name, wrapper function)]) of every table."""
    objects: dict[str, list | dict] = field(default_factory=empty_objects)
    """Control-plane objects: "tables" (`p4emu.ir.table_decls.TableDecl`s), "value_sets"
    (`p4emu.ir.declarations.ValueSetDecl`s) and, as dicts, "registers", "counters",
    "meters", "action_profiles" (lists) and "actions" (full name -> dict)."""
    links: dict[str, list[str]] = field(default_factory=dict)
    """Action profile / selector name -> the tables implemented by it."""
    actions_by_name: dict[str, ActionB] = field(default_factory=dict)
    """Action full name -> its binding (`py` set once the action is generated)."""
    digest_types: dict[str, StructT] = field(default_factory=dict)
    """Types passed to digest(), by name (tuples get a `tuple_n` name)."""
    anon_field_lists: dict[int, list[str]] = field(default_factory=dict)
    """Field lists written inline in clone/resubmit/recirculate calls: id -> field paths."""
    used_field_lists: set[int] = field(default_factory=set)
    """@field_list ids the program uses (each gets an `FL_n` function)."""
    direct_meter_writers: dict[str, str] = field(default_factory=dict)
    """Direct meter full name -> generated function writing its colour (see externs)."""
    errors: dict[str, int] = field(default_factory=dict)
    """`error` members -> their values, in declaration order."""
    struct_types: list[StructT] = field(default_factory=list)
    """Header/struct/union types in declaration order, checked (their classes come first
    in the module; P4Info's controller headers)."""
    p4rt_enums: dict[str, EnumT] = field(default_factory=dict)
    """Serializable enums the control plane sees: name -> type."""
    roles: dict[str, BlockCtx] = field(default_factory=dict)
    """V1Switch role ("parser", "verify", "ingress", ...) -> the block generated for it."""
    header_types: dict[str, StructT] = field(default_factory=dict)
    """"H", "M", "SM" -> the headers, metadata and standard_metadata types."""
    main_annotations: list[A.Annotation] = field(default_factory=list)
    """Annotations of the `main` instance (P4Info's pkg_info)."""
    typed: list = field(default_factory=list)
    """The typed IR emitted (statements, parser transitions, initial values of control
    variables), for the back-end checks (`passes/check_backend.py`); tables are in
    `objects["tables"]`."""

    def scratch(self) -> GeneratedProgram:
        """A copy to type-check a block main does not use: code, objects, bindings, dispatch
        tables, links, digest types, anonymous field lists and the typed IR start empty, actions_by_name
        is a copy; the other fields are shared with this one."""
        return replace(self, code=[], objects=empty_objects(), bindings={}, dispatch_tables=[],
                       links={}, actions_by_name=dict(self.actions_by_name), digest_types={},
                       anon_field_lists={}, typed=[])

    # -- the generated module ------------------------------------------------------------
    def field_list_source(self) -> list[str]:
        meta_t: StructT = self.header_types["M"]
        lists: dict[int, list[str]] = {}

        def walk(t: StructT, path: str) -> None:
            for fname, ft in t.fields:
                p = f"{path}.f_{fname}"
                for a in t.field_annotations.get(fname, []):
                    if a.name == "field_list":
                        for tok in a.body:
                            if tok.kind == "num":
                                lists.setdefault(tok.value[0], []).append(p)
                if isinstance(ft, StructT) and ft.kind == "struct":
                    walk(ft, p)

        walk(meta_t, "M")
        L = ["FIELD_LISTS = {}"]
        for idx in sorted(set(lists) | self.used_field_lists):
            L.append(f"def FL_{idx}(M, SM, DM, DSM):")
            paths = lists.get(idx, [])
            for p in paths:
                L.append(f"    D{p} = {p}")
            L.append("    pass")
            L.append(f"FIELD_LISTS[{idx}] = FL_{idx}")
        ingress = self.roles["ingress"]
        egress = self.roles["egress"]
        for idx, paths in self.anon_field_lists.items():
            L.append(f"def FL_{idx}(M, SM, DM, DSM):")
            for p in paths:
                root, _, rest = p.partition(".")
                if root == "p_" + ingress.params[1][0].name or root == "p_" + egress.params[1][0].name:
                    L.append(f"    DM.{rest} = M.{rest}")
                elif root == "p_" + ingress.params[2][0].name or root == "p_" + egress.params[2][0].name:
                    L.append(f"    DSM.{rest} = SM.{rest}")
            L.append("    pass")
            L.append(f"FIELD_LISTS[{idx}] = FL_{idx}")
        return L

    def module_source(self) -> str:
        L = ["# generated by p4emu"]
        L += struct_module_source(self.struct_types)
        L += self.code
        for disp, entries in self.dispatch_tables:
            items = ", ".join(f"AID[{name!r}]: {w}" for name, w in entries)
            L.append(f"{disp} = {{{items}}}")
        L += self.field_list_source()
        r = self.roles
        L.append(f"PARSE = {r['parser'].apply_py}")
        L.append(f"VERIFY = {r['verify'].apply_py}")
        L.append(f"INGRESS = {r['ingress'].apply_py}")
        L.append(f"EGRESS = {r['egress'].apply_py}")
        L.append(f"COMPUTE = {r['compute'].apply_py}")
        L.append(f"DEPARSE = {r['deparser'].apply_py}")
        L.append(f"NEW_H = {self.header_types['H'].py}")
        L.append(f"NEW_M = {self.header_types['M'].py}")
        L.append(f"NEW_SM = {self.header_types['SM'].py}")
        return "\n".join(L) + "\n"


@dataclass(eq=False)
class Declared:
    """The control-plane objects checked so far: P4Info names are unique per kind, and a
    switch label must be an action of the table applied. A block main does not use gets
    its own, as its objects are not the program's."""

    tables: list = field(default_factory=list)
    """`p4emu.ir.table_decls.TableDecl`s."""
    names: dict[str, list[str]] = field(default_factory=dict)
    """P4Info list ("registers", "counters", ...) -> the names of the extern objects in it."""


@dataclass(eq=False)
class GlobalEnv:
    """Tables of the top-level declarations and memos of the generation so far, consulted
    while generating (not read after it)."""

    global_kinds: dict[str, type] = field(default_factory=dict)
    """Top-level name -> the class of its declaration (to refuse redeclarations)."""
    new_types: dict[str, object] = field(default_factory=dict)
    """`type` declarations: name -> underlying type."""
    specialized: dict[tuple, StructT] = field(default_factory=dict)
    """(generic struct name, type args) -> its specialized type."""
    apply_sites: dict[int, tuple] = field(default_factory=dict)
    """id(apply call) -> what follows it (`analysis.apply_continuations`)."""
    declared: Declared = field(default_factory=Declared)
    names: NameResolution = field(default_factory=NameResolution)
    """The name-resolution pass's bindings (`passes.resolve_names`), made before checking."""
    decl_bindings: dict[int, Binding] = field(default_factory=dict)
    """id(top-level declaration, or the pass's placeholder of packet_in/packet_out) -> its
    binding in the global scope once declared: what a type name the pass bound to it
    denotes. One that a later declaration replaces (a forward `extern Name;`, a
    placeholder, a declaration a later one of another kind hides) maps to the later one's
    binding once that is declared, as a scope lookup would find."""


@dataclass(eq=False)
class WalkContext:
    """Where the checker and the emitter are."""

    in_parser: bool = False
    """Checking a parser's body (not an action or function called from it)."""
    frame: BlockFrame | None = None
    """The parser or control instance being checked (None: a global action, a function)."""
    uses: list | None = None
    """What the construct being checked uses that is checked after it (`check_blocks`)."""
    in_select_key: bool = False
    """Generating a select expression's key (BMv2 does not bounds-check a lookahead there)."""
    top_prefixes: set[str] = field(default_factory=set)
    """Name prefixes of main's six blocks (their apply functions neither copy `in` nor
    initialise `out` compound parameters)."""


@dataclass(eq=False)
class CompileState:
    """What the checker and the emitter share while they walk one program."""

    global_scope: Scope = field(default_factory=Scope)
    out: GeneratedProgram = field(default_factory=GeneratedProgram)
    env: GlobalEnv = field(default_factory=GlobalEnv)
    walk: WalkContext = field(default_factory=WalkContext)
    last_id: int = 0
    """The last fresh number given out (`next_id`): generated names are unique per program."""

    def next_id(self) -> int:
        self.last_id += 1
        return self.last_id


class CompileStateView:
    """The shared `CompileState`'s parts as attributes of the drivers and their passes."""

    state: CompileState

    @property
    def global_scope(self) -> Scope:
        return self.state.global_scope

    @property
    def out(self) -> GeneratedProgram:
        return self.state.out

    @out.setter
    def out(self, value: GeneratedProgram) -> None:
        self.state.out = value

    @property
    def env(self) -> GlobalEnv:
        return self.state.env

    @property
    def walk(self) -> WalkContext:
        return self.state.walk

    def next_id(self) -> int:
        return self.state.next_id()


class CompilePass(CompileStateView):
    """One pass of the checker or the emitter over the shared `CompileState` (`state`).

    `USES` names the other passes it calls, by their names in its driver
    (`checker.ProgramChecker`, `program.ProgramGen`): the driver constructs every pass with
    the state, then `connect_passes` sets each one's `USES` as attributes (`self.exprs`).
    Passes may call each other (expressions, statements and calls recurse into each other),
    but only through the passes they name: no pass is a part of another. They are named,
    not imported, because the recursion would make the modules import each other."""

    USES: tuple[str, ...] = ()

    def __init__(self, state: CompileState):
        self.state = state


def connect_passes(passes: dict[str, CompilePass]) -> None:
    """Give each of `passes` (by name) the passes it `USES`; a pass naming one the driver
    lacks is a bug of the compiler, reported here rather than at its first call."""
    for p in passes.values():
        for name in p.USES:
            if name not in passes:
                raise AssertionError(f"{type(p).__name__} uses a pass named {name!r}, which "
                                     "its driver does not have")
            setattr(p, name, passes[name])
