"""Top-level declarations (mixin of `ProgramGen`): the checker checked and bound each one
(`passes/declare_globals.py`); the emitter gives code to those that need it: an action its
P4Info record (`actions.py`), a top-level extern instance its run-time object
(`extern_objects.py`). Struct classes are generated from the checked types when the module
is written (`structs.py`).
"""

from __future__ import annotations

from p4emu.compiler.scope import ActionB, InstB


class DeclarationGen:
    """`self` is the `ProgramGen`."""

    def global_decl(self, b: ActionB | InstB) -> None:
        if isinstance(b, ActionB):
            self.register_action(b)
        else:
            b.py = self.emit_extern_instance(b.extern)
