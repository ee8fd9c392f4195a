"""Lowering pass: a finished generator's results (`GeneratedProgram`) -> `p4emu.ir.ControlPlane`.

The generator collects tables, actions and extern instances as it type-checks and
generates code (`objects`, `links`, `digest_types`, `struct_types`, `p4rt_enums` ...);
this is the one place that reads them for the control plane. Everything after it (P4Info,
ProgramInfo) reads the typed IR. Annotations become `p4emu.ir.Annotation`s, their P4Info
text rendered from the source tokens' spacing.
"""

from __future__ import annotations

from collections.abc import Iterable

from p4emu.compiler.generated import GeneratedProgram
from p4emu.ir import (
    Action,
    ActionParam,
    ActionProfile,
    ActionRef,
    Annotation,
    AnnotationToken,
    ControllerHeader,
    ControlPlane,
    Counter,
    Digest,
    DigestField,
    EnumMember,
    HeaderField,
    MatchField,
    Meter,
    Register,
    SerializableEnum,
    Table,
    TableEntry,
    ValueSet,
    ValueSetField,
)
from p4emu.ir import declarations as D
from p4emu.ir import table_decls as TD
from p4emu.ir.annotations import explicit_id, find_annotation, has_annotation
from p4emu.lang import ast as A
from p4emu.lang.types import ERROR, BitsT, BoolT, EnumT, StructT


def lower_control_plane(prog: GeneratedProgram) -> ControlPlane:
    """The control-plane objects of a generated program (`ProgramGen.out` after `run()`)."""
    objs = prog.objects
    tables = tuple(_table(t) for t in objs["tables"])
    table_names = {t.name for t in tables}
    return ControlPlane(
        actions=tuple(_used_actions(prog)),
        tables=tables,
        action_profiles=tuple(_action_profile(p, prog.links.get(p["name"], []), table_names)
                              for p in objs["action_profiles"]),
        counters=tuple(_counter(c, tables) for c in objs["counters"]),
        meters=tuple(_meter(c, tables) for c in objs["meters"]),
        registers=tuple(_register(r) for r in objs["registers"]),
        value_sets=tuple(_value_set(v) for v in objs["value_sets"]),
        controller_headers=tuple(_controller_headers(prog.struct_types)),
        digests=tuple(_digest(name, t) for name, t in prog.digest_types.items()),
        enums=tuple(_enum(et) for et in prog.p4rt_enums.values()),
        errors=tuple(sorted(prog.errors, key=prog.errors.get)),
        package_annotations=lower_annotations(prog.main_annotations),
    )


# -- annotations ---------------------------------------------------------------------------

def lower_annotation(a: A.Annotation) -> Annotation:
    """A frozen copy; `text` keeps the source's spacing between body tokens, as p4c."""
    body = "".join(t.text if i == 0 or t.loc.col == a.body[i - 1].end_col else " " + t.text
                   for i, t in enumerate(a.body))
    return Annotation(a.name, tuple(AnnotationToken(t.kind, t.text, t.value) for t in a.body),
                      f"@{a.name}({body})" if a.body else f"@{a.name}", a.loc)


def lower_annotations(annos: Iterable[A.Annotation] | None) -> tuple[Annotation, ...]:
    return tuple(lower_annotation(a) for a in annos or ())


# -- actions and tables --------------------------------------------------------------------

def _used_actions(prog: GeneratedProgram) -> list[Action]:
    """The actions P4Info lists: p4c's lists every action the controls use, referenced by a
    table or called directly (its P4Info is made before actions are inlined)."""
    used = {a.name for t in prog.objects["tables"] for a in t.actions}
    out = []
    for n, a in prog.objects["actions"].items():
        b = prog.actions_by_name.get(n)
        if n not in used and not (b is not None and b.py):
            continue
        annos = lower_annotations(a["annotations"])
        params = tuple(ActionParam(pn, w, lower_annotations(pannos), type_name)
                       for pn, w, pannos, type_name in a["params"])
        out.append(Action(n, params, annos, explicit_id(annos), has_annotation(annos, "hidden")))
    return out


def _action_ref(a: TD.ListedAction) -> ActionRef:
    annos = lower_annotations(a.annotations)
    scope = ("DEFAULT_ONLY" if has_annotation(annos, "defaultonly") else
             "TABLE_ONLY" if has_annotation(annos, "tableonly") else "TABLE_AND_DEFAULT")
    return ActionRef(a.name, scope, annos)


def _table(t: TD.TableDecl) -> Table:
    annos = lower_annotations(t.annotations)
    default = t.default_action
    return Table(
        name=t.name,
        keys=tuple(MatchField(k.name, k.match_kind, k.bitwidth, lower_annotations(k.annotations))
                   for k in t.keys),
        actions=tuple(_action_ref(a) for a in t.actions),
        size=t.size,
        default_action=default.name if default is not None else None,
        default_args=default.args if default is not None else (),
        const_default=t.const_default,
        entries=tuple(TableEntry(e.match, e.action.name, e.action.args, e.priority) for e in t.entries),
        is_const=t.is_const,
        implementation=t.attached_name("implementation"),
        direct_counter=t.attached_name("counters"),
        direct_meter=t.attached_name("meters"),
        idle_timeout=t.idle_timeout,
        annotations=annos,
        explicit_id=explicit_id(annos),
        hidden=has_annotation(annos, "hidden"),
    )


# -- extern instances ----------------------------------------------------------------------

def _action_profile(p: dict, linked: list[str], table_names: set[str]) -> ActionProfile:
    annos = lower_annotations(p["annotations"])
    mg = find_annotation(annos, "max_group_size")
    # p4c honours @max_group_size on selectors only
    mgs = mg.integer() if mg is not None and p["selector"] is not None else 0
    return ActionProfile(p["name"], p["size"], p["selector"],
                         tuple(tn for tn in linked if tn in table_names), mgs or 0, annos,
                         explicit_id(annos))


def _direct_table(name: str, tables: tuple[Table, ...], attr: str) -> str | None:
    """The table a direct counter / meter is attached to (the last one, if several)."""
    found = None
    for t in tables:
        if getattr(t, attr) == name:
            found = t.name
    return found


def _counter(c: dict, tables: tuple[Table, ...]) -> Counter:
    annos = lower_annotations(c["annotations"])
    table = _direct_table(c["name"], tables, "direct_counter") if c["direct"] else None
    return Counter(c["name"], c["size"], c["unit"], c["direct"], table, annos, explicit_id(annos))


def _meter(c: dict, tables: tuple[Table, ...]) -> Meter:
    annos = lower_annotations(c["annotations"])
    table = _direct_table(c["name"], tables, "direct_meter") if c["direct"] else None
    return Meter(c["name"], c["size"], c["unit"], c["direct"], table, annos, explicit_id(annos))


def _register(r: dict) -> Register:
    annos = lower_annotations(r["annotations"])
    return Register(r["name"], r["size"], r["bitwidth"], r.get("signed", False),
                    r.get("is_bool", False), annos, explicit_id(annos))


def _value_set(v: D.ValueSetDecl) -> ValueSet:
    annos = lower_annotations(v.annotations)
    fields = tuple(ValueSetField(fn, w, lower_annotations(fannos)) for fn, w, fannos in v.fields)
    return ValueSet(v.name, v.size, fields, isinstance(v.type, StructT), annos, explicit_id(annos))


# -- types at the control-plane boundary ---------------------------------------------------

def _width(t) -> int:
    """Width of a field the control plane sees: bit<W>/int<W>, a serializable enum's
    underlying type, else 1 (bool)."""
    if isinstance(t, BitsT):
        return t.width
    if isinstance(t, EnumT) and t.underlying:
        return t.underlying.width
    return 1


def _controller_headers(struct_types: list[StructT]) -> list[ControllerHeader]:
    """Header types annotated @controller_header, in declaration order."""
    out = []
    for t in struct_types:
        anno = A.find_annotation(t.annotations, "controller_header")
        if anno is None or t.kind != "header":
            continue
        fields = tuple(HeaderField(fname, _width(ft),
                                   lower_annotations(t.field_annotations.get(fname, [])))
                       for fname, ft in t.fields)
        annos = lower_annotations(t.annotations)
        out.append(ControllerHeader(t.name, anno.string() or t.name, fields, annos,
                                    explicit_id(annos), has_annotation(annos, "hidden")))
    return out


def _digest(name: str, t: StructT) -> Digest:
    """A digested type; error and plain enums are bit<32> in BMv2 (p4c's errorWidth,
    EnumOn32Bits) and P4Info names their type."""
    fields = []
    for fname, ft in t.fields:
        if ft is ERROR:
            fields.append(DigestField(fname, 32, "error"))
        elif isinstance(ft, EnumT) and ft.underlying is None:
            fields.append(DigestField(fname, 32, "enum", ft.name))
        else:
            kind = ("int" if isinstance(ft, BitsT) and ft.signed else
                    "bool" if isinstance(ft, BoolT) else "bit")
            fields.append(DigestField(fname, _width(ft), kind))
    return Digest(name, tuple(fields), "tuple" if getattr(t, "digest_tuple", False) else t.kind)


def _enum(et: EnumT) -> SerializableEnum:
    mask = et.underlying.mask
    return SerializableEnum(et.name, et.underlying.width,
                            tuple(EnumMember(m, et.values[m] & mask) for m in et.members))
