"""The V1Switch package checks over main's typed block instances
(`p4emu.ir.declarations.BlockInstance`, one per role): the number of each block's
parameters, one headers and one metadata struct type for all blocks, each parameter's
direction as its slot's block type says (p4c's type unification), and a headers type
BMv2 can lay out. `ProgramGen.gen_main` runs them before emitting the blocks.
"""

from __future__ import annotations

from p4emu.ir import declarations as D
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import StackT, StructT, Type

EXPECTED_PARAMS = {"parser": 4, "verify": 2, "ingress": 3, "egress": 3, "compute": 2, "deparser": 2}


def check_v1switch(blocks: list[tuple[str, D.BlockInstance]], slots: list) -> tuple[StructT, StructT]:
    """(headers type, metadata type) of V1Switch's blocks (`blocks`: (role, instance) in
    V1Switch's order); `slots`: the parameters of each slot's block type (the package's
    declaration), whose directions the blocks' parameters keep."""
    hdr_t, meta_t = check_signatures(blocks)
    for (_, inst), slot in zip(blocks, slots, strict=True):
        check_directions(inst, slot)
    parser = blocks[0][1]
    if len(parser.params) > 1:
        headers = parser.params[1]
        check_headers_type(headers.type, headers.type_loc)
    return hdr_t, meta_t


def check_signatures(blocks: list[tuple[str, D.BlockInstance]]) -> tuple[StructT, StructT]:
    hdr_t = meta_t = None
    for role, inst in blocks:
        decl = inst.decl
        if len(inst.params) != EXPECTED_PARAMS[role]:
            raise P4CompileError(decl.loc, f"{decl.name}: V1Switch {role} block needs {EXPECTED_PARAMS[role]} "
                                           f"parameters, has {len(inst.params)}")
        types = [p.type for p in inst.params]
        h = types[1] if role in ("parser", "deparser") else types[0]
        if hdr_t is None:
            hdr_t = h
        elif h is not hdr_t:
            raise P4CompileError(decl.loc, f"{decl.name}: headers type {h} differs from {hdr_t}")
        if role != "deparser":
            m = types[2] if role == "parser" else types[1]
            if meta_t is None:
                meta_t = m
            elif m is not meta_t:
                raise P4CompileError(decl.loc, f"{decl.name}: metadata type {m} differs from {meta_t}")
    if not isinstance(hdr_t, StructT) or not isinstance(meta_t, StructT):
        raise P4CompileError(blocks[0][1].decl.loc, "V1Switch headers and metadata must be structs")
    return hdr_t, meta_t


def check_directions(inst: D.BlockInstance, slot: list) -> None:
    """Each parameter of `inst` has the direction of its slot's parameter."""
    for mine, theirs in zip(inst.params, slot, strict=False):
        if mine.direction != theirs.direction:
            raise P4CompileError(mine.loc, f"Cannot unify '{mine.direction or 'directionless'}' "
                                           f"parameter '{mine.name}' with "
                                           f"'{theirs.direction or 'directionless'}' parameter "
                                           f"'{theirs.name}' because they have different directions")


def check_headers_type(t: Type, loc) -> None:
    """The parser's headers parameter: BMv2 (p4c simpleSwitch.cpp) wants a struct whose
    fields are headers, header stacks or header unions, after the mid end has flattened
    nested structs (NestedStructs) into it."""
    if not isinstance(t, StructT) or t.kind != "struct":
        raise P4CompileError(loc, f"{t}: expected type to be a struct")

    def only_headers(s: StructT) -> bool:
        return all(isinstance(ft, StackT)
                   or (isinstance(ft, StructT) and ft.kind in ("header", "header_union"))
                   or (isinstance(ft, StructT) and ft.kind == "struct" and only_headers(ft))
                   for _, ft in s.fields)

    if not only_headers(t):
        raise P4CompileError(loc, f"{t.name}: the type should be a struct of headers, "
                                  "stacks, or unions")
