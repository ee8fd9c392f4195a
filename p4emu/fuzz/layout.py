"""The frames a program's parser takes, read from its typed IR: each path from the start
state to accept is the headers it extracts (names, byte offsets, field offsets and
widths) and the constraints that lead along it (select keys on extracted fields or
lookaheads: bits of the frame; on standard_metadata.ingress_port: the port).

Only what the walk can place is kept: a select key it cannot tie to frame bits (a
metadata field, a stack's `last`) leaves that key free, and `advance` by a non-constant
amount ends the path there. Paths are a guide for the frame generator, never a second
parser: the pipelines decide what a frame is.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir import expressions as I
from p4emu.ir import parser_states as PS
from p4emu.ir import statements as S
from p4emu.lang.types import BitsT, BoolT, EnumT, ErrorT, StackT, StructT, VarbitT

MAX_PATHS = 64
MAX_VISITS = 4  # of one state on one path (header stacks loop)
MAX_DEPTH = 40


@dataclass(frozen=True)
class FieldSlot:
    header: str  # the header's instance name ("ipv4", "stack[1]")
    name: str
    offset: int  # bits from the start of the frame
    width: int


@dataclass(frozen=True)
class Constraint:
    offset: int  # bits from the start of the frame
    width: int
    value: int
    mask: int


@dataclass(frozen=True)
class Path:
    """One way through the parser."""

    states: tuple[str, ...]
    headers: tuple[tuple[str, int, int], ...]  # (instance name, first byte, size in bytes)
    fields: tuple[FieldSlot, ...]
    constraints: tuple[Constraint, ...]
    port: int | None  # an ingress port the path needs, or None
    length: int  # bytes the path extracts

    def boundaries(self) -> list[int]:
        """Every byte offset where a header starts or ends."""
        out = {0, self.length}
        for _, start, size in self.headers:
            out.update((start, start + size))
        return sorted(out)


def _scalar_width(t) -> int | None:
    if isinstance(t, BitsT):
        return t.width
    if isinstance(t, BoolT):
        return 1
    if isinstance(t, EnumT):
        return t.underlying.width if t.underlying is not None else None
    if isinstance(t, ErrorT):
        return None
    return None


def _header_fields(t: StructT) -> list[tuple[str, int]] | None:
    out = []
    for name, ft in t.fields:
        if isinstance(ft, VarbitT):
            return None
        w = _scalar_width(ft)
        if w is None:
            return None
        out.append((name, w))
    return out


def _text(e) -> str | None:
    """`hdr.ipv4.dstAddr` of a field chain, None for anything else."""
    if isinstance(e, I.VarRef):
        return e.name
    if isinstance(e, I.Field):
        base = _text(e.base)
        return None if base is None else f"{base}.{e.name}"
    if isinstance(e, I.StackIndex) and isinstance(e.index.const, int):
        base = _text(e.base)
        return None if base is None else f"{base}[{e.index.const}]"
    return None


def _const(e) -> int | None:
    v = e.const if e is not None else None
    if isinstance(v, bool):
        return int(v)
    return v if isinstance(v, int) else None


@dataclass
class _Walk:
    state: str
    offset: int  # bits
    headers: list
    fields: list
    constraints: list
    port: int | None
    stacks: dict  # stack text -> next index
    visits: dict
    states: list


def parser_paths(block) -> list[Path]:
    """The paths of a checked parser block (`CheckedBlock` with states)."""
    states = {s.name: s for s in block.states}
    sm_names = {p.name for p in block.params
                if getattr(p.type, "name", "") == "standard_metadata_t"}
    paths: list[Path] = []
    todo = [_Walk("start", 0, [], [], [], None, {}, {}, [])]
    while todo and len(paths) < MAX_PATHS:
        w = todo.pop()
        state = states.get(w.state)
        if state is None:
            continue
        w.visits[w.state] = w.visits.get(w.state, 0) + 1
        w.states.append(w.state)
        if w.visits[w.state] > MAX_VISITS or len(w.states) > MAX_DEPTH:
            continue
        if not _run_stmts(state.stmts, w):
            paths.append(_finish(w))
            continue
        tr = state.transition
        if tr is None:
            paths.append(_finish(w))
            continue
        if isinstance(tr, str):
            todo.append(_fork(w, tr))
            continue
        keys = [_key_place(k, w, sm_names) for k in tr.keys]
        for case in reversed(tr.cases):
            nw = _fork(w, case.state)
            for place, ks in zip(keys, case.keysets, strict=False):
                _constrain(nw, place, ks)
            if case.state is None:
                paths.append(_finish(nw))
            else:
                todo.append(nw)
    # shortest first: the frame generator picks among them uniformly anyway
    unique = {(p.states, p.constraints, p.port): p for p in paths}
    return sorted(unique.values(), key=lambda p: (p.length, p.states))


def _fork(w: _Walk, state: str | None) -> _Walk:
    return _Walk(state or "", w.offset, list(w.headers), list(w.fields), list(w.constraints),
                 w.port, dict(w.stacks), dict(w.visits), list(w.states))


def _finish(w: _Walk) -> Path:
    return Path(tuple(w.states), tuple(w.headers), tuple(w.fields), tuple(w.constraints),
                w.port, w.offset // 8)


def _run_stmts(stmts, w: _Walk) -> bool:
    """Follow a state's statements; False when the path cannot go on (unknown size)."""
    for st in stmts:
        if isinstance(st, S.Block):
            if not _run_stmts(st.stmts, w):
                return False
            continue
        if not isinstance(st, S.CallStatement):
            continue
        call = st.call
        callee = call.callee
        if not isinstance(callee, I.MethodRef) or getattr(callee.base.type, "name", "") != "packet_in":
            continue
        if callee.name == "extract" and len(call.args) == 1:
            target = call.args[0].value
            t = target.type
            if not isinstance(t, StructT) or t.kind != "header":
                return False
            fields = _header_fields(t)
            if fields is None:
                return False
            name = _extract_name(target, w)
            if name is None:
                return False
            start = w.offset
            for fname, width in fields:
                w.fields.append(FieldSlot(name, fname, w.offset, width))
                w.offset += width
            w.headers.append((name, start // 8, (w.offset - start) // 8))
        elif callee.name == "advance":
            n = _const(call.args[0].value)
            if n is None or n % 8:
                return False
            w.offset += n
    return True


def _extract_name(target, w: _Walk) -> str | None:
    if isinstance(target, I.StackProperty) and target.name == "next":
        base = _text(target.base)
        if base is None:
            return None
        i = w.stacks.get(base, 0)
        size = target.base.type.size if isinstance(target.base.type, StackT) else 0
        if i >= size:
            return None
        w.stacks[base] = i + 1
        return f"{base}[{i}]"
    return _text(target)


def _key_place(k, w: _Walk, sm_names: set[str]):
    """Where a select key's value lives: ("bits", offset, width, lo, key width) (a slice
    [hi:lo] of a field: its bits lo up from the field's end), ("port",), or None."""
    lo = hi = None
    if isinstance(k, I.Slice):
        lo, hi, k = k.lo, k.hi, k.base
    width = _scalar_width(k.type)
    if width is None:
        return None
    kw = width if lo is None else hi - lo + 1
    lo = lo or 0
    if isinstance(k, I.Call) and isinstance(k.callee, I.MethodRef) and \
            k.callee.name == "lookahead":
        return ("bits", w.offset, width, lo, kw)
    text = _text(k)
    if text is None:
        return None
    root, _, rest = text.partition(".")
    if root in sm_names and rest == "ingress_port":
        return ("port",)
    header, _, field = text.rpartition(".")
    for slot in reversed(w.fields):
        if slot.header == header and slot.name == field:
            return ("bits", slot.offset, slot.width, lo, kw)
    return None  # metadata, a stack's `last`: left free


def _constrain(w: _Walk, place, ks) -> None:
    if place is None or isinstance(ks, PS.AnyKey):
        return
    if isinstance(ks, PS.Exact):
        value, mask = _const(ks.value), None
    elif isinstance(ks, PS.Masked):
        value, mask = _const(ks.value), _const(ks.mask)
    elif isinstance(ks, PS.InRange):
        value, mask = _const(ks.low), None
    else:
        return
    if value is None:
        return
    if place[0] == "port":
        w.port = value & 0x1FF
        return
    _, offset, width, lo, kw = place
    full = (1 << kw) - 1
    m = full if mask is None else mask & full
    w.constraints.append(Constraint(offset, width, (value & m) << lo, m << lo))
