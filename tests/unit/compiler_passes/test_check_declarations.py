"""The declaration checker: constants are typed, converted and folded; extern instances
get typed constant constructor arguments and the v1model checks on them; value sets their
fields' widths; parser/control instances their bound constructor arguments. Errors are at
the offending location."""

from __future__ import annotations

import pytest

from p4emu.compiler.checker import ProgramChecker
from p4emu.compiler.generated import CompileState
from p4emu.compiler.scope import ActionB, ConstB, InstB, TypeB
from p4emu.ir import declarations as D
from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, EnumT

from .helpers import declaring, parse_program

EXTERNS = """
enum CounterType { packets, bytes, packets_and_bytes }
enum HashAlgorithm { crc32, random }
extern register<T> { register(bit<32> size); }
extern counter { counter(bit<32> size, CounterType type); }
extern action_selector { action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth); }
extern Checksum16 { Checksum16(); }
const bit<8> N = 4;
"""


def local(body: str, index: int = 0):
    """(generator, scope, the `index`th local) of `control c() { body apply {} }`."""
    gen, scope = declaring(EXTERNS + "control c() { " + body + " apply { } }")
    return gen, scope, gen.program.decls[-1].locals[index]


def extern(body: str) -> D.ExternInstance:
    gen, scope, d = local(body)
    return gen.checker.declarations.check_extern_instance(gen.checker.types.resolve(d.type, scope), f"c.{d.name}", d.args, d.loc, scope,
                                     d.annotations)


def test_a_const_is_converted_to_its_type_and_folded():
    gen, scope, d = local("const bit<4> K = 20 + 4;")
    c = gen.checker.declarations.check_const_decl(d, scope, d.loc)
    assert c.type == BitsT(4) and c.const == 8 and isinstance(c.value, I.Constant)
    assert isinstance(gen.global_scope.lookup("N"), ConstB) and gen.global_scope.lookup("N").value == 4


def test_a_const_of_the_wrong_type_or_not_constant_errors_at_its_location():
    gen, scope, d = local("const bit<8> K = true;")
    with pytest.raises(P4CompileError, match="type mismatch: expected bit<8>, got bool") as err:
        gen.checker.declarations.check_const_decl(d, scope, d.loc)
    assert str(err.value).startswith("t.p4:9:")
    gen, scope, d = local("const bit<8> K = x;")
    with pytest.raises(P4CompileError, match="expected a compile-time constant"):
        gen.checker.declarations.check_const_decl(d, scope, d.loc)


def test_extern_constructor_arguments_are_typed_constants_of_the_parameter_types():
    r = extern("register<bit<16>>(N) r;")
    assert r.kind == "register" and r.name == "c.r" and r.type.type_args["T"] == BitsT(16)
    (size,) = r.args
    assert size.type == BitsT(32) and size.const == 4
    cnt = extern("counter(32w7, CounterType.bytes) k;")
    size, unit = cnt.args
    assert (size.type, size.const) == (BitsT(32), 7)
    assert isinstance(unit.type, EnumT) and unit.type.members[unit.const] == "bytes"


def test_a_register_with_a_non_constant_size_errors_at_its_argument():
    with pytest.raises(P4CompileError, match="expected a compile-time constant") as err:
        extern("register<bit<8>>(x) r;")
    assert str(err.value).startswith("t.p4:9:")


def test_the_v1model_checks_on_extern_instances():
    with pytest.raises(P4CompileError, match="Only registers with bit or int types"):
        extern("register<bool>(4) r;")
    with pytest.raises(P4CompileError, match="no constructor takes 1 arguments"):
        extern("counter(4) k;")
    with pytest.raises(P4CompileError, match="HashAlgorithm.random"):
        extern("action_selector(HashAlgorithm.random, 16, 8) s;")
    with pytest.raises(P4CompileError, match="Checksum16: unknown extern instance"):
        extern("Checksum16() ck;")


def test_two_instances_of_one_name_are_refused_once_the_first_is_emitted():
    gen, scope, d = local("register<bit<8>>(4) r;")
    t = gen.checker.types.resolve(d.type, scope)
    first = gen.checker.declarations.check_extern_instance(t, "c.r", d.args, d.loc, scope, d.annotations)
    assert gen.extern_objects.emit_instance(first).startswith("REG_")
    with pytest.raises(P4CompileError, match="Name 'c.r' is used for multiple register objects"):
        gen.checker.declarations.check_extern_instance(t, "c.r", d.args, d.loc, scope, d.annotations)


def test_a_value_set_has_a_constant_size_and_its_fields_widths():
    gen, scope, d = local("value_set<bit<12>>(N * 2) vs;")
    vs = gen.checker.declarations.check_value_set(d, "c.vs", scope)
    assert (vs.name, vs.size, vs.fields) == ("c.vs", 8, (("", 12, ()),))


BLOCKS = """
control Inner_t();
control Impl() { apply { } }
control Sized(inout bit<8> v)(bit<8> n, bool on = true) { apply { } }
control Wrap()(Inner_t i) { apply { } }
"""


def block(name: str, args: str) -> D.BlockInstance:
    gen, scope = declaring(EXTERNS + BLOCKS + f"control top() {{ {name}({args}) inst; apply {{ }} }}")
    d = gen.program.decls[-1].locals[0]
    t = gen.checker.types.resolve(d.type, scope)
    return gen.checker.declarations.check_block_instance(t.decl, "top.inst", d.args, scope, t)


def test_a_sub_control_binds_its_constructor_arguments_and_defaults():
    inst = block("Sized", "N + 1")
    n, on = inst.args
    assert inst.name == "top.inst" and inst.type.name == "Sized"
    assert (n.name, n.type, n.value.const) == ("n", BitsT(8), 5)
    assert (on.name, on.value.const) == ("on", True)


def test_a_constructor_argument_must_be_a_constant_of_the_parameter_type():
    with pytest.raises(P4CompileError, match="expected a compile-time constant"):
        block("Sized", "x")
    with pytest.raises(P4CompileError, match="type mismatch"):
        block("Sized", "true")


def test_a_block_made_for_a_constructor_argument_is_checked_with_its_own_name():
    inst = block("Wrap", "Impl()")
    (i,) = inst.args
    assert i.value is None and i.block is not None
    assert (i.block.name, i.block.type.name, i.block.args) == ("top.inst.i", "Impl", ())
    with pytest.raises(P4CompileError, match="expected a parser or control instance"):
        block("Wrap", "N")


def test_a_block_is_checked_whole_with_the_instances_made_for_its_arguments_then_emitted():
    gen, scope = declaring(EXTERNS + BLOCKS)
    wrap = gen.global_scope.lookup("Wrap").ty.decl
    parsed = declaring(EXTERNS + BLOCKS + "control top() { Wrap(Impl()) w; Sized(7) s; apply { } }")[0]
    w, s = parsed.program.decls[-1].locals
    block = gen.checker.blocks.check_instance(wrap, "top.w", w.args, scope)
    (inner,) = block.arg_instances
    assert inner.full_name == "top.w.i" and inner.substituted and inner.block.name == "top.w.i"
    assert inner.py == "" and inner.ctx is None  # the emitter names it
    ctx = gen.blocks.emit_block(block, gen.next_id())
    assert block.frame.ctx is ctx and inner.ctx.apply_py.startswith("CA_") and inner.py == inner.ctx.apply_py
    sized = gen.checker.blocks.check_instance(gen.global_scope.lookup("Sized").ty.decl, "top.s", s.args, scope)
    assert [a.value.const for a in sized.instance.args] == [7, True]
    assert [(p.name, p.binding.py) for p in sized.params] == [("v", None)]
    gen.blocks.emit_block(sized, gen.next_id())
    assert [(p.name, p.binding.py) for p in sized.params] == [("v", "C.v_v")]


def test_a_blocks_parameters_are_typed_with_its_constructor_parameters_bound():
    gen, scope = declaring(EXTERNS + "control Wide(inout bit<W> v, in bool b)(bit<8> W) { apply { } }\n"
                           "control top() { Wide(12) w; apply { } }")
    d = gen.program.decls[-1].locals[0]
    t = gen.checker.types.resolve(d.type, scope)
    v, b = gen.checker.declarations.check_block_instance(t.decl, "top.w", d.args, scope, t).params
    assert (v.name, v.direction, v.type) == ("v", "inout", BitsT(12))
    assert (b.direction, b.type.__class__.__name__) == ("in", "BoolT")


def _declared(text: str):
    """The checker alone (no emitter), after binding the top-level declarations of `text`
    as `check_program` does (returned: the bindings of those that need code, in order)."""
    checker = ProgramChecker(CompileState())
    bound, _ = checker.declare_program(parse_program(text))
    return checker, bound


def test_top_level_declarations_are_bound_by_the_checker_and_return_what_needs_code():
    checker, bound = _declared(EXTERNS + "action a() { }\n@name(\"top.r\") register<bit<8>>(N) r;\nheader h_t { bit<8> f; }")
    action, inst = bound[-2:]  # the header needs no code of its own
    assert isinstance(action, ActionB) and action.full_name == "a"
    assert isinstance(inst, InstB) and inst.full_name == "top.r" and inst.py == ""  # the emitter names it
    assert inst.extern.args[0].const == 4
    assert isinstance(checker.global_scope.lookup("h_t"), TypeB)
    assert [t.name for t in checker.out.struct_types] == ["h_t"] and checker.out.code == []


def test_a_top_level_redeclaration_is_refused_where_it_is():
    with pytest.raises(P4CompileError, match=r"t\.p4:3:.*x: duplicate declaration"):
        _declared("const bit<8> x = 1;\nheader h_t { bit<8> f; }\nconst bit<8> x = 2;")
    with pytest.raises(P4CompileError, match=r"t\.p4:2:.*x: cannot instantiate at top-level"):
        _declared("control c() { apply { } }\nc() x;")
