"""The type checker on extern calls: extern functions, extern object methods and packet
methods get typed arguments in parameter order, and the v1model checks on them (result and
checksum widths, enum constants, hash data, index widths) error at their locations."""

from __future__ import annotations

import pytest

from p4emu.compiler.scope import VarB
from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, ObjectT

from .helpers import fragments, parse_expr

EXTERNS = """
enum HashAlgorithm { crc32, crc16, random }
enum CloneType { I2E, E2E }
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);
extern void clone(in CloneType type, in bit<32> session);
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);
extern register<T> { register(bit<32> size); void read(out T result, in bit<32> index); void write(in bit<32> index, in T value); }
register<bit<8>>(16) r;
header h_t { bit<8> a; bit<16> ck; }
"""


def check(text: str, extra=()):
    f = fragments(EXTERNS)
    for name, t in extra:
        f.bind(name, VarB(t, f"{name}_py"))
    return f.expr(text)


def test_hash_arguments_are_typed_in_parameter_order():
    e = check("hash(x, HashAlgorithm.crc16, 0, {w, b}, 255)")
    assert isinstance(e, I.Call) and e.callee.name == "hash"
    res, algo, base, data, mx = e.args
    assert res.direction == "out" and isinstance(res.value, I.VarRef) and res.type == BitsT(8)
    assert algo.type.name == "HashAlgorithm" and algo.value.const == 1  # folded: crc16
    assert base.type == BitsT(8) and mx.type == BitsT(8)  # the literals take the result's type
    assert isinstance(data.value, I.ListExpr) and [x.type for x in data.value.items][0] == BitsT(16)


def test_hash_refuses_a_result_that_is_not_bits_and_bmv2s_missing_random_hash():
    text = "hash(b, HashAlgorithm.crc16, 0, {w}, 255)"
    with pytest.raises(P4CompileError, match="hash: result must be bit<W>, got bool") as err:
        check(text)
    assert str(err.value).startswith(f"{parse_expr(text).loc}: error:")  # at the call
    with pytest.raises(P4CompileError, match="HashAlgorithm.random"):
        check("hash(x, HashAlgorithm.random, 0, {w}, 255)")
    with pytest.raises(P4CompileError, match="expected a HashAlgorithm constant"):
        check("hash(x, CloneType.I2E, 0, {w}, 255)")


def test_hash_data_must_be_a_list_of_fields():
    with pytest.raises(P4CompileError, match="data of type bit<16>: expected a struct") as err:
        check("hash(x, HashAlgorithm.crc16, 0, w, 255)")
    assert ":1:33: error:" in str(err.value)  # at the data argument


def test_a_checksum_field_must_be_bits_and_an_update_writes_it():
    e = check("update_checksum(true, {h.a}, h.ck, HashAlgorithm.crc16)", [("h", _header())])
    cond, data, ck, algo = e.args
    assert ck.direction == "inout" and isinstance(ck.value, I.Field) and ck.type == BitsT(16)
    with pytest.raises(P4CompileError, match="checksum must be bit<W>"):
        check("update_checksum(true, {h.a}, b, HashAlgorithm.crc16)", [("h", _header())])
    with pytest.raises(P4CompileError, match="not writable"):
        check("update_checksum(true, {x}, k, HashAlgorithm.crc16)")


def test_clone_session_converts_to_bit32_and_log_msg_needs_a_string_constant():
    kind, session = check("clone(CloneType.E2E, 5)").args
    assert kind.value.const == 1 and session.type == BitsT(32) and session.value.const == 5
    with pytest.raises(P4CompileError, match="log_msg: the message must be a string literal"):
        check('log_msg(s, {x})', [("s", _string())])


def test_register_methods_get_typed_arguments_and_a_wrong_width_index_errors_at_the_call():
    res, idx = check("r.read(x, 3)").args
    assert res.direction == "out" and res.type == BitsT(8)
    assert idx.type == BitsT(32) and idx.value.const == 3
    with pytest.raises(P4CompileError, match="type mismatch: expected bit<32>, got bit<16>") as err:
        check("r.write(w, x)")
    assert str(err.value).startswith(f"{parse_expr('r.write(w, x)').loc}: error:")  # as p4c
    with pytest.raises(P4CompileError, match="register read: result type bit<16> does not match bit<8>"):
        check("r.read(w, 0)")
    with pytest.raises(P4CompileError, match="register has no method count"):
        check("r.count(0)")


def test_named_arguments_of_an_extern_method_are_put_in_parameter_order():
    res, idx = check("r.read(index = 2, result = x)").args
    assert res.type == BitsT(8) and idx.value.const == 2


def test_packet_methods_are_typed():
    pk = ObjectT("packet_in", "packet_in")
    e = check("pk.lookahead<bit<12>>()", [("pk", pk), ("h", _header())])
    assert e.type == BitsT(12) and e.type_args == (("T", BitsT(12)),)
    (target,) = check("pk.extract(h)", [("pk", pk), ("h", _header())]).args
    assert target.direction == "out" and target.type.name == "h_t"
    with pytest.raises(P4CompileError, match="extract: bit<8> is not a header"):
        check("pk.extract(x)", [("pk", pk)])
    out = ObjectT("packet_out", "packet_out")
    with pytest.raises(P4CompileError, match="emit: bit<8> is not a header, stack or struct"):
        check("po.emit(x)", [("po", out)])


def _header():
    return fragments(EXTERNS).scope.lookup("h_t").ty


def _string():
    from p4emu.lang.types import STRING
    return STRING
