"""Checks p4c makes that p4emu's code generation does not need: without them p4emu would
accept programs p4c refuses (each names the p4c pass it mirrors)."""

from __future__ import annotations

from collections.abc import Iterable

from p4emu.compiler.analysis import expr_text
from p4emu.compiler.passes.resolve_names import ParserStates, Unresolved
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import ERROR, Type


def check_unique_name(names: Iterable[str], name: str, kind: str, loc) -> None:
    """P4Info names each table and extern instance by its control-plane name; two of one
    kind sharing a name (say `@name(".t")` in a control instantiated twice) cannot both be
    addressed (p4c: "Name ... is used for multiple ... objects in the P4Info message")."""
    if name in names:
        raise P4CompileError(loc, f"Name '{name}' is used for multiple {kind} objects in the "
                                  "P4Info message")


U64 = (1 << 64) - 1  # p4c computes entry priorities in size_t


def check_entry_priorities(priorities: list[int | None], match_kinds: list[str], is_const: bool,
                           largest_wins: bool, delta: int, table: str, locs) -> None:
    """p4c's EntryPriorities on a table's `entries`: `priorities` holds each entry's
    `priority = n:` value (or None), `locs` each entry's location then the table's.

    The numbering itself never reaches BMv2 (tables.py), only these verdicts do."""
    with_priority = next((i for i, p in enumerate(priorities) if p is not None), None)
    table_loc = locs[-1]
    if is_const:
        if with_priority is not None:
            raise P4CompileError(locs[with_priority],
                                 "Table with 'const' entries cannot have priorities")
        return
    if not 0 <= delta <= 0xFFFFFFFF:  # p4c: Constant::fitsUint
        raise P4CompileError(table_loc, f"priority_delta {delta} must be a positive value")
    if not match_kinds:
        return
    if all(k in ("exact", "lpm") for k in match_kinds):
        if with_priority is not None:
            raise P4CompileError(table_loc, "key match type does not require priorities, "
                                            "but some are specified")
        return
    if with_priority is None:  # numbered from the last (largest wins) or the first entry
        current = 1
        for _ in priorities:
            if current + delta > U64:
                raise P4CompileError(table_loc, f"{table} Overflow in priority computation")
            current += delta
        return
    if priorities[0] is None:
        raise P4CompileError(locs[0], "entry must have a priority")
    current = 0
    for p in priorities:
        current = p if p is not None else current
        nxt = current - delta if largest_wins else current + delta
        if not 0 <= nxt <= U64:
            raise P4CompileError(table_loc, f"{table} Overflow in priority computation")
        current = nxt


def check_parser_terminates(resolved: ParserStates) -> None:
    """p4c's RemoveUnreachableStates: some state reachable from `start` must be accept or
    reject (a state without a transition goes to reject). `resolved`: the parser's states,
    resolved (`passes.resolve_names`), its state table without error."""
    decl = resolved.decl
    seen, todo = set(), [resolved.states["start"]]
    while todo:
        st = todo.pop()
        if st is None:  # accept or reject
            return
        if id(st) in seen:
            continue
        seen.add(id(st))
        if st.transition is None:
            return
        for ref in resolved.successors(st):
            if isinstance(ref, Unresolved):
                return  # undeclared: reported as such when the transition is checked
            todo.append(ref.state)
    raise P4CompileError(decl.loc, f"parser {decl.name}: Parser never reaches accept or reject state")


CHECKSUM_CALLS = {"verify": ("verify_checksum", "verify_checksum_with_payload"),
                  "compute": ("update_checksum", "update_checksum_with_payload")}


def check_checksum_control(decl, role: str) -> None:
    """As BMv2's back end (SimpleSwitchBackend::convertChecksum): the V1Switch verify and
    compute controls hold nothing but calls of their checksum functions (in blocks), and the
    data of each call is fields, lists and constants, not computations. (So not `f =
    ck.get(data)` of the deprecated Checksum16 either, which p4c 1.2.5 refuses everywhere.)"""
    allowed = CHECKSUM_CALLS[role]

    def walk(stmt) -> None:
        if isinstance(stmt, A.Block):
            for inner in stmt.stmts:
                walk(inner)
            return
        if isinstance(stmt, A.Empty):
            return
        if (isinstance(stmt, A.CallStmt) and isinstance(stmt.call.func, A.Path)
                and stmt.call.func.name in allowed):
            data = _argument(stmt.call, 1, "data")
            bad = None if data is None else _first_computation(data)
            if bad is not None:
                raise P4CompileError(bad.loc, f"Computations are not supported in {allowed[0]}")
            return
        raise P4CompileError(stmt.loc, f"Only calls to {allowed[0]} or {allowed[1]} allowed "
                                       f"in {decl.name}")

    walk(decl.body)


def _argument(call, position: int, name: str):
    named = [a for a in call.args if a.name == name]
    if named:
        return named[0].value
    return call.args[position].value if len(call.args) > position else None


def _first_computation(e):
    """The first part of `e` that is computed (p4c's EnsureExpressionIsSimple), or None.
    What folds to a constant counts as a constant, as after p4c's constant folding."""
    if isinstance(e, A.Path) or _folds(e):
        return None
    if isinstance(e, A.Member):
        return _first_computation(e.expr)
    if isinstance(e, A.Index):
        return _first_computation(e.expr) or _first_computation(e.index)
    if isinstance(e, A.ListExpr):
        return next((b for b in map(_first_computation, e.items) if b is not None), None)
    if isinstance(e, A.StructExpr):
        return next((b for b in (_first_computation(v) for _, v in e.fields) if b is not None),
                    None)
    if isinstance(e, A.TypeExpr):
        return None  # an enum member or error constant
    return e


def _folds(e) -> bool:
    """Whether p4c's constant folding makes `e` a constant."""
    if getattr(e, "const", None) is not None or isinstance(e, A.IntLit | A.BoolLit):
        return True
    if isinstance(e, A.Cast | A.Unary):
        return _folds(e.expr)
    if isinstance(e, A.Binary):
        return _folds(e.left) and _folds(e.right)
    return False


ENTRY_KEY_KINDS = {"exact": "exact", "ternary": "ternary", "lpm": "LPM", "range": "range",
                   "optional": "optional"}


def check_entry_key(k, key_type: Type, match_kind: str) -> None:
    """BMv2's back end (convertTableEntries) writes an entry's key only from a number or a
    boolean: an `error` member stays a name there (enums became numbers), so is refused."""
    if key_type is ERROR and not isinstance(k, (A.Mask, A.Range, A.DefaultKey, A.DontCare)):
        kind = ENTRY_KEY_KINDS.get(match_kind, match_kind)
        text = (f"error.{k.name}" if isinstance(k, A.Member) and isinstance(k.expr, A.TypeExpr)
                else expr_text(k))
        raise P4CompileError(k.loc, f"{text}: unsupported {kind} key expression")
