"""BMv2 back-end checks over the typed IR of what main uses (p4c's back end never sees
the rest): the deparser's `if`s (`check_deparser`), reads of `s.next` (`check_next_reads`), the
value sets' types (`check_value_set_type`) and the tables' direct meters
(`check_direct_meters`); `check_backend` runs them after main's blocks are generated.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING

from p4emu.ir import declarations as D
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.ir import table_decls as T
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, EnumT, StackT, StructT

if TYPE_CHECKING:
    from p4emu.compiler.generated import GeneratedProgram


def check_backend(out: GeneratedProgram, deparser_body: S.Block) -> None:
    """The BMv2 back end's refusals in the IR of what main uses (`out`, before lowering)."""
    check_deparser(deparser_body)
    check_next_reads(out.typed + out.objects["tables"])
    for vs in out.objects["value_sets"]:
        check_value_set_type(vs)
    check_direct_meters(out.objects["tables"], out.objects["meters"], set(out.direct_meter_writers))


def check_deparser(body: S.Block) -> None:
    """BMv2's deparser (DeparserConverter) is a list of emits and extern calls: an `if`
    that p4c cannot fold away (a literal condition, empty branches) is refused."""
    for stmt in body.stmts:
        if isinstance(stmt, S.Block):
            check_deparser(stmt)
        elif (isinstance(stmt, S.If) and not isinstance(stmt.cond, I.Constant)
              and not (_empty(stmt.then) and _empty(stmt.other))):
            raise P4CompileError(stmt.loc, "IfStatement: not supported within a deparser on "
                                           "this target")


def _empty(stmt: S.Stmt | None) -> bool:
    if stmt is None or isinstance(stmt, S.Empty):
        return True
    return isinstance(stmt, S.Block) and all(map(_empty, stmt.stmts))


def check_next_reads(typed: list) -> None:
    """BMv2's expression converter refuses `s.next.f` for a header stack `s` outside an
    extract (`s.next` is no element BMv2 can name), a read or a write, and so `s.next =
    {...}` (p4c writes its fields one by one). `typed`: the typed IR generated."""
    for node in ir_nodes(typed):
        if isinstance(node, I.Field) and _is_next(node.base) and node.name in _field_names(node.base.type):
            raise P4CompileError(node.base.loc, f"{_text(node.base)} uninitialized: next field read")
        if isinstance(node, S.Assign) and _is_next(node.target) \
                and isinstance(node.value, (I.ListExpr, I.StructExpr)):
            raise P4CompileError(node.target.loc, f"{_text(node.target)} uninitialized: next field read")


def ir_nodes(roots: list):
    """Every IR node under `roots`, depth first in field order; the types, constants, scope
    bindings and syntax (annotations, block declarations) nodes hold are not followed."""
    todo = list(reversed(roots))
    while todo:
        n = todo.pop()
        if isinstance(n, (list, tuple)):
            todo.extend(reversed(n))
        elif is_dataclass(n) and type(n).__module__.startswith("p4emu.ir."):
            yield n
            todo.extend(reversed([getattr(n, f.name) for f in fields(n)
                                  if f.name not in ("type", "const", "binding", "loc")]))


def _is_next(e) -> bool:
    return (isinstance(e, I.StackProperty) and e.name == "next" and isinstance(e.base.type, StackT)
            and e.base.type.elem.kind == "header")


def _field_names(t) -> set[str]:
    return {name for name, _ in t.fields} if isinstance(t, StructT) else set()


def _text(e: I.Expr) -> str:
    """The source text of a reference to a header stack (`hdr.s.next`)."""
    if isinstance(e, I.Field | I.StackProperty):
        return f"{_text(e.base)}.{e.name}"
    if isinstance(e, I.StackIndex):
        return f"{_text(e.base)}[{e.index.const}]"
    return getattr(e, "name", "expr")


def check_value_set_type(vs: D.ValueSetDecl) -> None:
    """As p4c's P4Runtime serializer: a value_set holds bit<W>, a struct of bit<W> fields
    or a serializable enum (a tuple p4emu refuses as a key of its own)."""
    t = vs.type
    if isinstance(t, StructT) and t.kind == "struct":
        for field, ft in t.fields:
            if not isinstance(ft, BitsT) or ft.newtype is not None:
                raise P4CompileError(vs.loc, "Unsupported type argument for Value Set; this version "
                                             "of P4Runtime requires that when the type parameter of "
                                             "a Value Set is a struct, all the fields of the struct "
                                             f"must be of type bit<W>, but {field} is not")
    elif not ((isinstance(t, BitsT) and t.newtype is None)
              or (isinstance(t, EnumT) and t.underlying is not None)):
        raise P4CompileError(vs.loc, f"{vs.name}: invalid type parameter for Value Set; it must be one of "
                                     "bit<W>, struct, tuple or serializable enum")


def check_direct_meters(tables: list[T.TableDecl], meters: list[dict], read: set[str]) -> None:
    """BMv2's back end (DirectMeterMap): a table's `meters = m` needs some call of m.read
    (which names the field the colour goes to), and a direct meter that is read needs a
    table whose `meters` property names it."""
    for t in tables:
        m = t.attached_name("meters")
        if m is not None and m not in read:
            raise P4CompileError(t.loc, f"{t.name}: table with direct meter {m} must have "
                                        "at least one action with a read method call")
    attached = {t.attached_name("meters") for t in tables}
    for m in meters:
        if m["direct"] and m["name"] in read and m["name"] not in attached:
            raise P4CompileError(m["loc"], f"{m['name']}: direct meter is not associated with any "
                                           "table via 'meters' table property")
