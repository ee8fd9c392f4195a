"""Whole-program generation: global declarations, the V1Switch package, the generated
Python module source and the control-plane object lists (`objects`, `links`, ...), which
`lower_control_plane.py` turns into the typed `p4emu.ir.ControlPlane`.

How a program becomes Python (one pass that type-checks and generates):

- every header/struct/union type becomes a `__slots__` class (`structs.py`): fields are
  attributes `f_<name>`, headers add `valid`, `extract(pk)`, `emit(out)`, `set_valid()`,
  `copy()`, `assign()`, `equals()`;
- every parser/control *instance* (top-level blocks and sub-blocks, so two instances of one
  control get their own tables) becomes functions (`blocks.py`): the apply function takes
  the compound parameters by reference plus scalar `in`/`inout` values and returns scalar
  `out`/`inout` results; control-level variables and scalar parameters live in a per-apply
  frame object `C`; actions and table-apply functions take the same `(params..., C)`;
  parser states are functions returning the next state (None = accept);
- a table becomes `TA_n(...)`: key tuple → `Table.lookup` → dispatch dict `TD_n`
  (action id → wrapper that unpacks action data) → returns the LookupResult, so
  `.hit`/`.action_run` are attribute reads (`tables.py`);
- externs become calls into `p4emu.v1model.support` and the run-time objects (`externs.py`,
  packet_in/packet_out in `packets.py`, `lookahead.py`); per-packet requests (clone,
  resubmit, digest, truncate ...) go to the global `PS`;
- checks p4c makes that the generated code does not need (P4Info names, entry priorities,
  parser termination, block directions, BMv2's back-end limits) are in `checks.py`;
- module-level names `TBL_n`, `REG_n`, `CNT_n`, `MTR_n`, `VS_n` are bound by the Pipeline to
  a DeviceState's objects (`bindings`), `AID` maps action names to P4Info ids.

Values: bit<N> = unsigned int, int<N> = signed int, bool, error/enum = int, varbit =
(width, value). Arithmetic is masked at each operation, as p4c's BMv2 back end does.
"""

from __future__ import annotations

from p4emu.compiler.blocks import BlockGen
from p4emu.compiler.calls import CallGen
from p4emu.compiler.checks import (
    CHECKSUM_CALLS,
    check_block_directions,
    check_checksum_control,
    check_generated,
    check_headers_type,
)
from p4emu.compiler.exprs import ExprGen, V
from p4emu.compiler.externs import ExternGen
from p4emu.compiler.instances import InstanceGen
from p4emu.compiler.ordering import OrderGen
from p4emu.compiler.packets import PacketGen
from p4emu.compiler.parsers import ParserGen
from p4emu.compiler.scope import (
    ActionB,
    BlockDeclB,
    ConstB,
    ExternFuncB,
    FuncB,
    InstB,
    Scope,
    TypeB,
)
from p4emu.compiler.stmts import StmtGen
from p4emu.compiler.structs import flat_width, struct_bits_source, struct_class_source
from p4emu.compiler.tables import TableGen
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    BitsT,
    EnumT,
    ObjectT,
    StackT,
    StructT,
    TypeVarT,
    VarbitT,
)

V1SWITCH_ROLES = ("parser", "verify", "ingress", "egress", "compute", "deparser")
V1SWITCH_PARAMS = ("p", "vr", "ig", "eg", "ck", "dep")  # parameter names in v1model.p4


class ProgramGen(ExprGen, StmtGen, CallGen, ExternGen, PacketGen, BlockGen, ParserGen,
                 InstanceGen, TableGen, OrderGen):
    def __init__(self, program: A.Program):
        self.program = program
        self.global_scope = Scope()
        self.errors: dict[str, int] = {}
        self.apply_sites: dict[int, tuple] = {}  # analysis.apply_continuations
        self.match_kinds: set[str] = set()
        self.counter = [0]
        self.code: list[str] = []
        self.struct_code: list[str] = []
        self.bits_structs: set[str] = set()  # structs given from_bits/to_bits
        self.bindings: dict[str, tuple[str, str]] = {}
        self.dispatch_tables: list[tuple[str, list[tuple[str, str]]]] = []
        self.objects: dict = {"tables": [], "actions": {}, "registers": [], "counters": [],
                              "meters": [], "action_profiles": [], "value_sets": []}
        self.links: dict[str, list[str]] = {}
        self.actions_by_name: dict[str, ActionB] = {}
        self.digest_types: dict[str, StructT] = {}
        self.specialized: dict[tuple, StructT] = {}  # (generic name, type args) -> type
        self.used_field_lists: set[int] = set()
        # direct meter full name -> generated function writing its colour (see externs)
        self.direct_meter_writers: dict[str, str] = {}
        self.anon_field_lists: dict[int, list[str]] = {}
        self.in_parser = False
        self.in_select_key = False
        self.top_prefixes: set[str] = set()
        self.global_kinds: dict[str, type] = {}
        self.new_types: dict = {}  # `type` declarations: name -> underlying type
        self.p4rt_enums: dict = {}  # serializable enums the control plane sees: name -> EnumT
        self.struct_types: list[StructT] = []
        self.roles: dict = {}
        self.header_types: dict = {}
        self.main_annotations: list = []

    def next_id(self) -> int:
        self.counter[0] += 1
        return self.counter[0]

    # -- globals -----------------------------------------------------------------------
    def run(self) -> None:
        g = self.global_scope
        for name, kind in (("packet_in", "packet_in"), ("packet_out", "packet_out")):
            g.bind(name, TypeB(ObjectT(kind, name)))
        main = None
        for d in self.program.decls:
            if isinstance(d, A.InstanceDecl) and d.name == "main":
                main = d
                continue
            self.global_decl(d)
        if main is not None:
            self.main_annotations = main.annotations  # P4Info pkg_info (@pkginfo, @brief)
            self.gen_main(main)
        self.check_unused_blocks()
        if main is None:
            raise P4CompileError(self.program.loc, "no 'main' package instantiation found")

    def check_unused_blocks(self) -> None:
        """Type-check parsers/controls that main does not use (p4c reports their errors too)."""
        used = {id(ctx.decl) for ctx in self.roles.values() if hasattr(ctx, "decl")}
        for d in self.program.decls:
            if not isinstance(d, (A.ParserDecl, A.ControlDecl)) or id(d) in used:
                continue
            if d.type_params or d.ctor_params:
                continue
            saved = (self.code, self.objects, self.bindings, self.dispatch_tables, self.links,
                     dict(self.actions_by_name), self.digest_types, self.anon_field_lists)
            self.code, self.bindings, self.dispatch_tables, self.links = [], {}, [], {}
            self.objects = {k: ({} if isinstance(v, dict) else []) for k, v in saved[1].items()}
            self.digest_types, self.anon_field_lists = {}, {}
            try:
                self.gen_block(d, d.name, [], self.global_scope)
            finally:
                (self.code, self.objects, self.bindings, self.dispatch_tables, self.links,
                 self.actions_by_name, self.digest_types, self.anon_field_lists) = saved

    def global_decl(self, d: A.Decl) -> None:
        g = self.global_scope
        if getattr(d, "forward", False):  # `extern Name;` until (unless) Name is declared
            if d.name not in self.global_kinds:
                g.bind(d.name, TypeB(ObjectT("extern", d.name, d)))
            return
        fwd = g.names.get(d.name)
        if isinstance(fwd, TypeB) and isinstance(fwd.ty, ObjectT) and getattr(fwd.ty.decl, "forward", False):
            g.names.pop(d.name)  # the declaration a forward `extern Name;` announced
        prev = self.global_kinds.get(d.name)
        if prev is type(d) and not isinstance(d, (A.ExternFuncDecl, A.ErrorDecl, A.MatchKindDecl)):
            raise P4CompileError(d.loc, f"{d.name}: duplicate declaration")
        if prev is not None and prev is not type(d):
            g.names.pop(d.name, None)  # a declaration of another kind: the later one is visible
        self.global_kinds[d.name] = type(d)
        if isinstance(d, A.ErrorDecl):
            for m in d.members:
                self.errors.setdefault(m, len(self.errors))
        elif isinstance(d, A.MatchKindDecl):
            self.match_kinds.update(d.members)
        elif isinstance(d, A.TypedefDecl):
            t = self.resolve_type(d.type, g)
            if d.new_type:  # `type`: named in P4Info type_info, p4c's Type_Newtype
                t = BitsT(t.width, t.signed, d.name) if isinstance(t, BitsT) else t
                self.new_types[d.name] = t
            g.declare(d.name, loc=d.loc, b=TypeB(t))
        elif isinstance(d, A.HeaderDecl):
            if d.type_params:
                # a generic struct/header: concrete types are made per use (specialize_struct)
                g.declare(d.name, loc=d.loc, b=TypeB(ObjectT("generic_struct", d.name, d)))
                return
            t = StructT(d.kind, d.name, annotations=d.annotations)
            g.declare(d.name, loc=d.loc, b=TypeB(t))
            self._define_struct(t, d, g)
        elif isinstance(d, A.EnumDecl):
            under = self.resolve_type(d.underlying, g) if d.underlying is not None else None
            t = EnumT(d.name, [m for m, _ in d.members], under)
            if len(set(t.members)) != len(t.members):
                raise P4CompileError(d.loc, f"enum {d.name}: duplicate member")
            nxt = 0
            for m, e in d.members:
                if under is None:
                    t.values[m] = len(t.values)
                else:
                    if e is None:
                        raise P4CompileError(d.loc, f"serializable enum member {m} needs a value")
                    v = self.coerce(self.const_value(e, g, under), under, e.loc)
                    t.values[m] = v.const
                nxt += 1
            g.declare(d.name, loc=d.loc, b=TypeB(t))
        elif isinstance(d, A.VarDecl):
            t = self.resolve_type(d.type, g)
            v = self.coerce(self.const_value(d.init, g, t), t, d.init.loc)
            g.declare(d.name, loc=d.loc, b=ConstB(t, v.const))
        elif isinstance(d, A.ExternDecl):
            if d.name in ("packet_in", "packet_out"):  # replaces the built-in placeholder
                g.bind(d.name, TypeB(ObjectT(d.name, d.name, d)))
            else:
                g.declare(d.name, loc=d.loc, b=TypeB(ObjectT("extern", d.name, d)))
        elif isinstance(d, A.ExternFuncDecl):
            b = g.names.get(d.name)
            if not isinstance(b, ExternFuncB):
                b = ExternFuncB(d.name)
                g.declare(d.name, loc=d.loc, b=b)
            b.overloads.append(d)
        elif isinstance(d, A.ActionDecl):
            b = ActionB(d, _global_name(d), None)
            g.declare(d.name, loc=d.loc, b=b)
            self.register_action(b)
        elif isinstance(d, A.FunctionDecl):
            g.declare(d.name, loc=d.loc, b=FuncB(d))
        elif isinstance(d, (A.ParserDecl, A.ControlDecl)):
            kind = "parser" if isinstance(d, A.ParserDecl) else "control"
            g.declare(d.name, loc=d.loc, b=TypeB(ObjectT(kind, d.name, d)))
        elif isinstance(d, A.BlockTypeDecl):
            g.declare(d.name, loc=d.loc, b=BlockDeclB(d, ObjectT(d.kind + "_type", d.name, d)))
        elif isinstance(d, A.InstanceDecl):
            t = self.resolve_type(d.type, g)
            if isinstance(t, ObjectT) and t.kind in ("parser", "control"):
                # p4c (TypeInference) allows only package and extern instances here
                raise P4CompileError(d.loc, f"{d.name}: cannot instantiate at top-level")
            if not isinstance(t, ObjectT) or t.kind != "extern":
                raise unsupported(d.loc, f"top-level instantiation of {t}")
            py = self.extern_instance(t, _global_name(d), d.args, d, g, d.annotations)
            g.declare(d.name, loc=d.loc, b=InstB("extern", t, _global_name(d), py, d))
        else:
            raise unsupported(d.loc, f"top-level {type(d).__name__}")

    def _define_struct(self, t: StructT, d: A.HeaderDecl, scope) -> None:
        """Resolve the fields of struct/header/union `t` declared by `d` and emit its class."""
        t.py = f"H_{self.next_id()}_{t.name}"
        for f in d.fields:
            ft = self.resolve_type(f.type, scope)
            if d.kind == "header" and not isinstance(ft, VarbitT) and flat_width(ft) is None:
                raise P4CompileError(f.loc, f"header field {f.name}: type {ft} not allowed in a header")
            if d.kind == "header_union" and not (isinstance(ft, StructT) and ft.kind == "header"):
                raise P4CompileError(f.loc, f"header_union field {f.name} must be a header")
            t.fields.append((f.name, ft))
            t.field_annotations[f.name] = f.annotations
        self.struct_code += struct_class_source(t, d.loc)
        self.struct_types.append(t)
        if d.kind == "header":
            for _, ft in t.fields:
                self._struct_in_header(ft)

    def _struct_in_header(self, t) -> None:
        """Give a struct laid out inside a header (and its nested structs) from_bits/to_bits."""
        if not isinstance(t, StructT) or t.kind != "struct" or t.py in self.bits_structs:
            return
        self.bits_structs.add(t.py)
        for _, ft in t.fields:
            self._struct_in_header(ft)
        self.struct_code += struct_bits_source(t)

    def specialize_struct(self, generic: ObjectT, type_args: dict, loc) -> StructT:
        """The concrete type of `S<T1, ...>` for a generic struct/header `S`, one per
        distinct list of type arguments (p4c's SpecializeGenericTypes names them S_0...)."""
        d = generic.decl
        args = [type_args[p] for p in d.type_params]
        if any(isinstance(a, TypeVarT) for a in args):
            # in a generic function's signature: a pattern the call's arguments unify with
            t = StructT(d.kind, f"{d.name}<{', '.join(map(str, args))}>", annotations=d.annotations)
            t.generic_origin = (d.name, args)
            return t
        key = (d.name, tuple(map(str, args)))
        t = self.specialized.get(key)
        if t is None:
            k = sum(1 for n, _ in self.specialized if n == d.name)
            t = StructT(d.kind, f"{d.name}_{k}", annotations=d.annotations)
            t.generic_origin = (d.name, args)
            self.specialized[key] = t
            self._define_struct(t, d, self.tvar_scope(self.global_scope, type_args))
        return t

    # -- main --------------------------------------------------------------------------
    def gen_main(self, main: A.InstanceDecl) -> None:
        t = main.type
        if not isinstance(t, A.TName) or t.name != "V1Switch":
            raise unsupported(main.loc, f"package {getattr(t, 'name', '?')} (only v1model V1Switch)")
        if len(main.args) != 6:
            raise P4CompileError(main.loc, f"V1Switch expects 6 arguments, got {len(main.args)}")
        args = main.args
        if all(a.name is not None for a in args):  # V1Switch(p = P(), ig = I(), ...)
            order = {n: i for i, n in enumerate(V1SWITCH_PARAMS)}
            if sorted(a.name for a in args) != sorted(V1SWITCH_PARAMS):
                raise P4CompileError(main.loc, f"V1Switch: arguments must be named {', '.join(V1SWITCH_PARAMS)}")
            args = sorted(args, key=lambda a: order[a.name])
        decls = []
        for role, arg in zip(V1SWITCH_ROLES, args, strict=True):
            e = arg.value
            if not isinstance(e, A.Call) or not isinstance(e.func, (A.TypeExpr, A.Path)):
                raise P4CompileError(arg.loc, f"V1Switch argument {role}: expected a constructor call")
            name = e.func.type.name if isinstance(e.func, A.TypeExpr) else e.func.name
            b = self.global_scope.lookup(name)
            if not isinstance(b, TypeB) or not isinstance(b.ty, ObjectT) or b.ty.kind not in ("parser", "control"):
                raise P4CompileError(arg.loc, f"{name}: not a parser or control")
            want = "parser" if role == "parser" else "control"
            if b.ty.kind != want:
                raise P4CompileError(arg.loc, f"V1Switch argument {role}: {name} is not a {want}")
            decls.append((role, b.ty.decl, e.args))
        self._check_signatures(decls)
        check_block_directions([d for _, d, _ in decls], self.global_scope)
        parser_decl = decls[0][1]
        if len(parser_decl.params) > 1:
            headers = parser_decl.params[1]
            check_headers_type(self.resolve_type(headers.type, self.global_scope), headers.type.loc)
        self.top_prefixes = set()
        for _, decl, _ in decls:
            anno = A.find_annotation(decl.annotations, "name")
            self.top_prefixes.add(anno.string().lstrip(".") if anno is not None and anno.string() else decl.name)
        for role, decl, args in decls:
            anno = A.find_annotation(decl.annotations, "name")
            prefix = anno.string().lstrip(".") if anno is not None and anno.string() else decl.name
            if role in CHECKSUM_CALLS:
                check_checksum_control(decl, role)
            ctx = self.gen_block(decl, prefix, args, self.global_scope)
            ctx.decl = decl
            self.roles[role] = ctx
        check_generated(self, decls[-1][1])  # BMv2 back end's refusals, in what main uses

    def _check_signatures(self, decls) -> None:
        expected = {"parser": 4, "verify": 2, "ingress": 3, "egress": 3, "compute": 2, "deparser": 2}
        hdr_t = meta_t = None
        for role, decl, _ in decls:
            if len(decl.params) != expected[role]:
                raise P4CompileError(decl.loc, f"{decl.name}: V1Switch {role} block needs {expected[role]} parameters, has {len(decl.params)}")
            types = [self.resolve_type(p.type, self.global_scope) for p in decl.params]
            h = types[1] if role in ("parser", "deparser") else types[0]
            if hdr_t is None:
                hdr_t = h
            elif h is not hdr_t:
                raise P4CompileError(decl.loc, f"{decl.name}: headers type {h} differs from {hdr_t}")
            if role != "deparser":
                m = types[2] if role == "parser" else types[1]
                if meta_t is None:
                    meta_t = m
                elif m is not meta_t:
                    raise P4CompileError(decl.loc, f"{decl.name}: metadata type {m} differs from {meta_t}")
        if not isinstance(hdr_t, StructT) or not isinstance(meta_t, StructT):
            raise P4CompileError(decls[0][1].loc, "V1Switch headers and metadata must be structs")
        self.header_types = {"H": hdr_t, "M": meta_t, "SM": self.global_scope.lookup("standard_metadata_t").ty}

    # -- field lists -------------------------------------------------------------------
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

    # -- module ------------------------------------------------------------------------
    def module_source(self) -> str:
        L = ["# generated by p4emu"]
        L += self.struct_code
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


def _global_name(d: A.Decl) -> str:
    anno = A.find_annotation(d.annotations, "name")
    if anno is not None and anno.string():
        return anno.string().lstrip(".")
    return d.name


__all__ = ["ProgramGen", "V", "StackT", "TypeVarT"]
