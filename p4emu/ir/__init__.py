"""Typed IR of a compiled program: frozen, slotted dataclasses built by compiler passes.

This slice holds the control-plane objects (`ControlPlane`: actions, tables, action
profiles, counters, meters, registers, value sets, controller headers, digests and
serializable enums), which `p4emu.compiler.lower_control_plane` builds from the
generator's results and `p4emu.p4info` turns into P4Info and ProgramInfo, and typed
expressions, statements, parser states, table declarations and other declarations
(`p4emu.ir.expressions`, `statements`, `parser_states`, `table_decls`, `declarations`,
and whole blocks and the program: `blocks`; modules of their own), which the compiler's
passes build, fold and emit Python from (`p4emu.compiler.passes`). The package
depends only on `p4emu.lang`; nothing here reads the compiler.
"""

from __future__ import annotations

from p4emu.ir.annotations import Annotation, Annotations, AnnotationToken, find_annotation
from p4emu.ir.control_plane import ControlPlane
from p4emu.ir.packet_types import (
    ControllerHeader,
    Digest,
    DigestField,
    EnumMember,
    HeaderField,
    SerializableEnum,
)
from p4emu.ir.resources import ActionProfile, Counter, Meter, Register, ValueSet, ValueSetField
from p4emu.ir.tables import Action, ActionParam, ActionRef, MatchField, Table, TableEntry

__all__ = [
    "Action", "ActionParam", "ActionProfile", "ActionRef", "Annotation", "AnnotationToken",
    "Annotations", "ControlPlane", "ControllerHeader", "Counter", "Digest", "DigestField",
    "EnumMember", "HeaderField", "MatchField", "Meter", "Register", "SerializableEnum",
    "Table", "TableEntry", "ValueSet", "ValueSetField", "find_annotation",
]
