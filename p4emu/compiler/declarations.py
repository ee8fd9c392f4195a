"""Top-level declarations (mixin of `ProgramGen`): the checker checks and binds each one
(`passes/declare_globals.py`); the emitter gives code to those that need it: an action its
P4Info record (`actions.py`), a top-level extern instance its run-time object
(`extern_objects.py`). Struct classes are generated from the checked types when the module
is written (`structs.py`).
"""

from __future__ import annotations

from p4emu.compiler.scope import ActionB, InstB
from p4emu.lang import ast as A


class DeclarationGen:
    """`self` is the `ProgramGen`."""

    def global_decl(self, d: A.Decl) -> None:
        b = self.checker.declare_global(d)
        if isinstance(b, ActionB):
            self.register_action(b)
        elif isinstance(b, InstB):
            b.py = self.emit_extern_instance(b.data.pop("instance"))
