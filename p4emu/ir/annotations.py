"""Annotations as the control plane sees them: frozen copies of the parser's `@name(...)`.

The P4Info writer needs an annotation's name, its body tokens (`@id(5)`, `@match(lpm)`,
`@pkginfo(k = "v")`), its text as p4c prints it (`@name(body)` with the source's spacing)
and its location (for errors about bad values); nothing else of the syntax tree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from p4emu.lang.annotation_tokens import first_integer, first_string
from p4emu.lang.errors import Loc


@dataclass(frozen=True, slots=True)
class AnnotationToken:
    """One token of an annotation body."""

    kind: str  # "id", "kw", "num", "str", "punct"
    text: str  # as written
    value: object = None  # num: (value, width | None, signed); str: the unescaped string


@dataclass(frozen=True, slots=True)
class Annotation:
    """`@name(body)`; `text` is how P4Info lists it."""

    name: str
    body: tuple[AnnotationToken, ...] = ()
    text: str = ""
    loc: Loc | None = None

    def string(self) -> str | None:
        """The first string literal of the body (`@name("x")` -> "x")."""
        return first_string(self.body)

    def integer(self) -> int | None:
        """The first number of the body (`@id(5)` -> 5)."""
        return first_integer(self.body)


Annotations = tuple[Annotation, ...]


def find_annotation(annos: Iterable[Annotation] | None, name: str) -> Annotation | None:
    """The first annotation called `name`, or None."""
    for a in annos or ():
        if a.name == name:
            return a
    return None


def has_annotation(annos: Iterable[Annotation] | None, name: str) -> bool:
    return find_annotation(annos, name) is not None


def explicit_id(annos: Iterable[Annotation] | None) -> int | None:
    """The value of `@id(N)`, or None: the id p4c's allocator reserves before hashing."""
    a = find_annotation(annos, "id")
    return a.integer() if a is not None else None


def annotation_texts(annos: Iterable[Annotation] | None, skip: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The annotations as P4Info strings, leaving out those named in `skip`."""
    return tuple(a.text for a in annos or () if a.name not in skip)
