"""Types the control plane exchanges with the data plane: packet_in / packet_out
metadata headers, digested types and serializable enums."""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.annotations import Annotations


@dataclass(frozen=True, slots=True)
class HeaderField:
    """A field of a controller header."""

    name: str
    bitwidth: int
    annotations: Annotations = ()


@dataclass(frozen=True, slots=True)
class ControllerHeader:
    """A header type annotated `@controller_header("packet_in" | "packet_out")`."""

    type_name: str  # the header type's name (what its id is hashed from)
    name: str  # the annotation's value (the P4Info name)
    fields: tuple[HeaderField, ...]
    annotations: Annotations = ()
    explicit_id: int | None = None
    hidden: bool = False


@dataclass(frozen=True, slots=True)
class DigestField:
    """A member of a digested type, as BMv2 carries it."""

    name: str
    bitwidth: int  # 32 for error and plain enums (BMv2's width for them)
    kind: str = "bit"  # bit, int, bool, error, enum (a plain enum: see enum_name)
    enum_name: str | None = None


@dataclass(frozen=True, slots=True)
class Digest:
    """A type a `digest<T>(...)` call sends: a struct, a header, or a list expression."""

    name: str
    fields: tuple[DigestField, ...]
    kind: str = "struct"  # struct, header, tuple


@dataclass(frozen=True, slots=True)
class EnumMember:
    name: str
    value: int  # unsigned, in the underlying width


@dataclass(frozen=True, slots=True)
class SerializableEnum:
    """`enum bit<W> E { ... }` used where the control plane sees it."""

    name: str
    bitwidth: int
    members: tuple[EnumMember, ...]
