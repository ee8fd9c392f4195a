"""Reading an annotation's body tokens: shared by the syntax tree and the typed IR, whose
annotations keep the same tokens (anything with `kind`, `value` and `text`)."""

from __future__ import annotations

from collections.abc import Iterable


def first_string(body: Iterable) -> str | None:
    """The first string literal of the body (`@name("x")` -> "x")."""
    for t in body:
        if t.kind == "str":
            return t.value
    return None


def first_integer(body: Iterable) -> int | None:
    """The first number of the body, negative after a `-` (`@id(5)` -> 5)."""
    sign = 1
    for t in body:
        if t.text == "-":
            sign = -1
        if t.kind == "num":
            return sign * t.value[0]
    return None
