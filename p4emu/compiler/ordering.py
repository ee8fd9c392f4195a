"""Evaluation order of expressions whose parts emit statements (functions of the emitter's
passes: they need only the generated function `fn`).

An expression is generated as one Python expression, but a call with out/inout arguments
(and a few externs) must first emit statements: the call and its copy-out. Emitting them
ahead of the whole expression would run them before operands to their left and even when
`&&`, `||` or `?:` would not evaluate them. p4c's SideEffectOrdering pass defines the
order BMv2 sees: operands and arguments left to right (an earlier one is saved in a
temporary before a later side effect runs), and the lazy operand of `&&`/`||`/`?:` turned
into an `if`. This module gives the generator the same order: sub-expressions are
generated into a capture buffer, and only when one of them emitted statements are the
earlier siblings saved / the lazy operand wrapped.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.values import V
from p4emu.lang.types import StackT, StructT


def capture(fn, gen: Callable[[], V], extra_indent: int = 0) -> tuple[V, list[str]]:
    """Run `gen` with the statements it emits diverted into a list (indented
    `extra_indent` levels deeper than the current block)."""
    if fn is None or not hasattr(fn, "lines"):
        return gen(), []
    saved = fn.lines
    fn.lines = []
    fn.indent += extra_indent
    try:
        v = gen()
    finally:
        lines = fn.lines
        fn.lines = saved
        fn.indent -= extra_indent
    return v, lines


def snapshot(v: V, fn) -> V:
    """Save the current value of `v` in a temporary, so that statements emitted later
    (a call's copy-out) cannot change what this operand evaluated to."""
    if v.const is not None or v.py == "None":
        return v
    if isinstance(v.ref, tuple) and v.ref[0] in ("list", "struct", "method"):
        return v  # aggregate built from already ordered parts / not a value
    tmp = fn.fresh("o")
    copy = ".copy()" if isinstance(v.ty, (StructT, StackT)) else ""
    fn.emit(f"{tmp} = {v.py}{copy}")
    return V(tmp, v.ty, None, v.ref)


def in_order(fn, gens: list[Callable[[], V]]) -> list[V]:
    """Evaluate sub-expressions left to right; an operand followed by one that emits
    statements is snapshotted before those statements run."""
    parts = [capture(fn, g) for g in gens]
    out: list[V] = []
    for i, (v, lines) in enumerate(parts):
        fn_lines(fn).extend(lines)
        if any(later for _, later in parts[i + 1:]):
            v = snapshot(v, fn)
        out.append(v)
    return out


def lazy_join(fn, left: V, right: V, right_lines: list[str], op: str) -> V:
    """`left && right` / `left || right` where `right` emitted `right_lines` (captured
    one level deeper): they run only when `left` does not decide the result."""
    tmp = fn.fresh("sc")
    fn.emit(f"{tmp} = {left.py}")
    fn.emit(f"if {tmp}:" if op == "&&" else f"if not {tmp}:")
    fn.lines.extend(right_lines)
    fn.indent += 1
    fn.emit(f"{tmp} = {right.py}")
    fn.indent -= 1
    return V(tmp, right.ty)


def branch_join(fn, cond: V, then: tuple[V, list[str]], other: tuple[V, list[str]]) -> V:
    """`cond ? then : other` where an arm emitted statements (captured one level
    deeper): only the chosen arm's statements run."""
    tmp = fn.fresh("tc")
    for head, (v, lines) in ((f"if {cond.py}:", then), ("else:", other)):
        fn.emit(head)
        fn.lines.extend(lines)
        fn.indent += 1
        fn.emit(f"{tmp} = {v.py}")
        fn.indent -= 1
    return V(tmp, then[0].ty)


def fn_lines(fn) -> list[str]:
    return fn.lines if fn is not None and hasattr(fn, "lines") else []
