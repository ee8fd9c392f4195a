"""The whole-program check (`WholeProgramChecker`, a pass of the `ProgramChecker`): the
program's typed IR (`p4emu.ir.blocks.Program`) before anything is emitted. Names the
resolution pass covers are resolved first (`resolve_names.py`: parser states, match kinds,
type names), then top-level declarations are declared in program order
(`declare_globals.py`), then main's V1Switch blocks are resolved and checked (their
signatures first, `check_v1switch.py`, then each whole, `check_blocks.py`), then the
parsers and controls main does not use (p4c reports their errors too), and last a type name
nothing checked that names no type (p4c resolves every name of the program)."""

from __future__ import annotations

from p4emu.compiler.checks import CHECKSUM_CALLS, check_checksum_control
from p4emu.compiler.generated import CompilePass, Declared
from p4emu.compiler.passes.check_v1switch import check_v1switch
from p4emu.compiler.passes.resolve_names import resolve_names
from p4emu.compiler.scope import TypeB
from p4emu.ir import blocks as B
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import ObjectT

V1SWITCH_ROLES = ("parser", "verify", "ingress", "egress", "compute", "deparser")
V1SWITCH_PARAMS = ("p", "vr", "ig", "eg", "ck", "dep")  # parameter names in v1model.p4


class WholeProgramChecker(CompilePass):
    """The whole program, in p4c's order: declarations, main's blocks, the blocks main does
    not use."""

    USES = ("global_decls", "blocks", "declarations")

    def check_program(self, program: A.Program) -> B.Program:
        declared, main = self.declare_program(program)
        roles, types = self._check_main(main) if main is not None else ((), ())
        unused = self._check_unused_blocks(program, {id(b.instance.decl) for _, b in roles})
        if main is None:
            raise P4CompileError(program.loc, "no 'main' package instantiation found")
        unread = self.env.names.types.first_unread_error()
        if unread is not None:
            unread.raise_()
        return B.Program(tuple(declared), roles, unused, types, tuple(main.annotations))

    def declare_program(self, program: A.Program) -> tuple[list, A.InstanceDecl | None]:
        """What comes before checking any code: the name-resolution pass over `program`
        (the checker reads its bindings), the built-in externs' placeholders, then every
        top-level declaration but main's instance, in order. Returns the bindings of the
        declarations that need code (`declare_global`) and main's instance (or None)."""
        g = self.global_scope
        self.env.names = resolve_names(program)
        for name, placeholder in self.env.names.types.placeholders.items():  # until core.p4 declares them
            g.bind(name, TypeB(ObjectT(name, name)))
            self.env.decl_bindings[id(placeholder)] = g.names[name]
        main = None
        declared = []
        for d in program.decls:
            if isinstance(d, A.InstanceDecl) and d.name == "main":
                main = d
                continue
            b = self.global_decls.declare_global(d)
            if b is not None:
                declared.append(b)
        return declared, main

    def _check_main(self, main: A.InstanceDecl):
        """Main's blocks by role, checked, and the types of their headers, metadata and
        standard metadata."""
        instances = [(role, self.declarations.check_block_instance(decl, _prefix(decl), args, self.global_scope))
                     for role, decl, args in self._v1switch_arguments(main)]
        package = self.global_scope.lookup("V1Switch").decl
        slots = [getattr(getattr(self.global_scope.lookup(getattr(p.type, "name", "")), "decl", None), "params", [])
                 for p in package.params]
        hdr_t, meta_t = check_v1switch(instances, slots)
        types = (("H", hdr_t), ("M", meta_t), ("SM", self.global_scope.lookup("standard_metadata_t").ty))
        roles = []
        for role, inst in instances:
            if role in CHECKSUM_CALLS:
                check_checksum_control(inst.decl, role)
            roles.append((role, self.blocks.check_block_contents(inst)))
        return tuple(roles), types

    def _v1switch_arguments(self, main: A.InstanceDecl) -> list[tuple[str, A.Decl, list]]:
        """(role, parser/control declaration, constructor arguments) of main's arguments."""
        t = main.type
        if not isinstance(t, A.TName) or t.name != "V1Switch":
            raise unsupported(main.loc, f"package {getattr(t, 'name', '?')} (only v1model V1Switch)")
        if len(main.args) != 6:
            raise P4CompileError(main.loc, f"V1Switch expects 6 arguments, got {len(main.args)}")
        args = main.args
        if all(a.name is not None for a in args):  # V1Switch(p = P(), ig = I(), ...)
            order = {n: i for i, n in enumerate(V1SWITCH_PARAMS)}
            if sorted(a.name for a in args) != sorted(V1SWITCH_PARAMS):
                raise P4CompileError(main.loc, f"V1Switch: arguments must be named {', '.join(V1SWITCH_PARAMS)}")
            args = sorted(args, key=lambda a: order[a.name])
        decls = []
        for role, arg in zip(V1SWITCH_ROLES, args, strict=True):
            e = arg.value
            if not isinstance(e, A.Call) or not isinstance(e.func, (A.TypeExpr, A.Path)):
                raise P4CompileError(arg.loc, f"V1Switch argument {role}: expected a constructor call")
            name = e.func.type.name if isinstance(e.func, A.TypeExpr) else e.func.name
            b = self.global_scope.lookup(name)
            if not isinstance(b, TypeB) or not isinstance(b.ty, ObjectT) or b.ty.kind not in ("parser", "control"):
                raise P4CompileError(arg.loc, f"{name}: not a parser or control")
            want = "parser" if role == "parser" else "control"
            if b.ty.kind != want:
                raise P4CompileError(arg.loc, f"V1Switch argument {role}: {name} is not a {want}")
            decls.append((role, b.ty.decl, e.args))
        return decls

    def _check_unused_blocks(self, program: A.Program, used: set[int]) -> tuple[B.CheckedBlock, ...]:
        """The parsers/controls main does not use; their objects are not the program's, so
        their names may repeat the program's (`Declared`)."""
        checked = []
        for d in program.decls:
            if not isinstance(d, (A.ParserDecl, A.ControlDecl)) or id(d) in used:
                continue
            if d.type_params or d.ctor_params:
                continue
            saved, self.env.declared = self.env.declared, Declared()
            try:
                checked.append(self.blocks.check_instance(d, d.name, [], self.global_scope))
            finally:
                self.env.declared = saved
        return tuple(checked)


def _prefix(decl) -> str:
    anno = A.find_annotation(decl.annotations, "name")
    return anno.string().lstrip(".") if anno is not None and anno.string() else decl.name

