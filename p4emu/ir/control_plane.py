"""`ControlPlane`: every object of a compiled program the control plane can see.

Built once per program by the compiler's lowering pass
(`p4emu.compiler.lower_control_plane`); the P4Info / ProgramInfo builder
(`p4emu.p4info`) reads nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from p4emu.ir.annotations import Annotations
from p4emu.ir.packet_types import ControllerHeader, Digest, SerializableEnum
from p4emu.ir.resources import ActionProfile, Counter, Meter, Register, ValueSet
from p4emu.ir.tables import Action, Table


@dataclass(frozen=True, slots=True)
class ControlPlane:
    """The control-plane objects of one program, each kind in program order."""

    actions: tuple[Action, ...] = ()  # those the controls use (tables or direct calls)
    tables: tuple[Table, ...] = ()
    action_profiles: tuple[ActionProfile, ...] = ()
    counters: tuple[Counter, ...] = ()  # direct ones included
    meters: tuple[Meter, ...] = ()  # direct ones included
    registers: tuple[Register, ...] = ()
    value_sets: tuple[ValueSet, ...] = ()
    controller_headers: tuple[ControllerHeader, ...] = ()
    digests: tuple[Digest, ...] = ()
    enums: tuple[SerializableEnum, ...] = ()  # serializable enums the control plane sees
    errors: tuple[str, ...] = ()  # the `error` members, by value
    package_annotations: Annotations = ()  # of the `main` instance (P4Info pkg_info)

    def find(self, kind: str, name: str):
        """The object of `kind` (a field name above) called `name`; KeyError if none."""
        for obj in getattr(self, kind):
            if obj.name == name:
                return obj
        raise KeyError(f"no {kind} named {name!r}")
