"""Parser value sets (`value_set<T>(size)`), written by the control plane."""

from __future__ import annotations

from collections.abc import Iterable

from p4emu.runtime.errors import InvalidEntry, TableFull
from p4emu.runtime.match import FieldMatch, field_matches
from p4emu.runtime.model import ValueSetInfo


class ValueSet:
    """Members are tuples of FieldMatch|None, one per field of the set's type."""

    def __init__(self, info: ValueSetInfo) -> None:
        self.info = info
        self.members: list[tuple[FieldMatch | None, ...]] = []

    def set_members(self, members: Iterable[tuple[FieldMatch | None, ...]]) -> None:
        """Replace all members (P4Runtime writes a value set as a whole)."""
        new = [tuple(m) for m in members]
        if len(new) > self.info.size:
            raise TableFull(f"value set {self.info.name} holds at most {self.info.size}")
        for member in new:
            if len(member) != len(self.info.fields):
                raise InvalidEntry(f"value set {self.info.name}: {len(self.info.fields)} "
                                   f"fields per member, got {len(member)}")
        self.members = new

    def contains(self, values: tuple[int, ...]) -> bool:
        """Whether the select key `values` (one int per field) matches any member."""
        fields = self.info.fields
        for member in self.members:
            if all(field_matches(fm, v, f.bitwidth)
                   for fm, v, f in zip(member, values, fields, strict=True)):
                return True
        return False

    def reset(self) -> None:
        self.members = []
