"""The V1Switch checks over main's typed block instances: parameter counts, one headers and
one metadata type, the slots' parameter directions, a headers struct BMv2 can lay out."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from p4emu.compiler.passes.check_v1switch import check_headers_type, check_v1switch
from p4emu.ir import declarations as D
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, ObjectT, StackT, StructT

H = StructT("header", "h_t", [("a", BitsT(8))])
HDRS = StructT("struct", "headers_t", [("h", H), ("s", StackT(H, 2))])
META = StructT("struct", "meta_t", [("m", BitsT(8))])
SM = StructT("struct", "standard_metadata_t", [("port", BitsT(9))])
PKT = ObjectT("packet_in", "packet_in", None)
OUT = ObjectT("packet_out", "packet_out", None)

# (role, [(name, direction, type)]) of a well-formed V1Switch
SIGNATURES = [
    ("parser", [("b", "", PKT), ("hdr", "out", HDRS), ("meta", "inout", META), ("sm", "inout", SM)]),
    ("verify", [("hdr", "inout", HDRS), ("meta", "inout", META)]),
    ("ingress", [("hdr", "inout", HDRS), ("meta", "inout", META), ("sm", "inout", SM)]),
    ("egress", [("hdr", "inout", HDRS), ("meta", "inout", META), ("sm", "inout", SM)]),
    ("compute", [("hdr", "inout", HDRS), ("meta", "inout", META)]),
    ("deparser", [("b", "", OUT), ("hdr", "in", HDRS)]),
]


def blocks(signatures=SIGNATURES):
    out = []
    for i, (role, params) in enumerate(signatures):
        decl = SimpleNamespace(name=role.capitalize(), loc=f"t.p4:{i + 1}:1")
        ps = tuple(D.BlockParam(n, d, t, f"t.p4:{i + 1}:{k + 10}", f"t.p4:{i + 1}:{k + 20}")
                   for k, (n, d, t) in enumerate(params))
        out.append((role, D.BlockInstance(decl, ObjectT("control", decl.name, decl), role, (), ps)))
    return out


def slots(signatures=SIGNATURES):
    return [[SimpleNamespace(name=n, direction=d) for n, d, _ in params] for _, params in signatures]


def test_a_well_formed_v1switch_gives_its_headers_and_metadata_types():
    assert check_v1switch(blocks(), slots()) == (HDRS, META)


def test_a_block_with_the_wrong_number_of_parameters_errors_at_the_block():
    sigs = list(SIGNATURES)
    sigs[2] = ("ingress", SIGNATURES[2][1][:2])
    with pytest.raises(P4CompileError, match="Ingress: V1Switch ingress block needs 3 parameters, has 2") as err:
        check_v1switch(blocks(sigs), slots())
    assert str(err.value).startswith("t.p4:3:1")


def test_blocks_must_agree_on_the_headers_type():
    other = StructT("struct", "other_t", [("h", H)])
    sigs = list(SIGNATURES)
    sigs[4] = ("compute", [("hdr", "inout", other), ("meta", "inout", META)])
    with pytest.raises(P4CompileError, match="headers type other_t differs from headers_t"):
        check_v1switch(blocks(sigs), slots())


def test_a_parameter_keeps_its_slots_direction_errors_at_the_parameter():
    sigs = list(SIGNATURES)
    sigs[5] = ("deparser", [("b", "", OUT), ("hdr", "inout", HDRS)])
    with pytest.raises(P4CompileError, match="Cannot unify 'inout' parameter 'hdr' with 'in' parameter 'hdr'") as err:
        check_v1switch(blocks(sigs), slots())
    assert str(err.value).startswith("t.p4:6:11")


def test_the_headers_type_is_a_struct_of_headers_stacks_or_unions_at_its_type():
    with_bits = StructT("struct", "bad_t", [("h", H), ("x", BitsT(8))])
    sigs = [(role, [(n, d, with_bits if t is HDRS else t) for n, d, t in params]) for role, params in SIGNATURES]
    with pytest.raises(P4CompileError, match="bad_t: the type should be a struct of headers") as err:
        check_v1switch(blocks(sigs), slots())
    assert str(err.value).startswith("t.p4:1:21")
    with pytest.raises(P4CompileError, match="expected type to be a struct"):
        check_headers_type(H, "t.p4:1:1")
    check_headers_type(StructT("struct", "nested_t", [("inner", HDRS)]), "t.p4:1:1")
