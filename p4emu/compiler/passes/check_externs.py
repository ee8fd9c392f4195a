"""Extern function calls in the type checker (`ExternFunctionChecker`, a pass of the
`ProgramChecker`): each extern of core.p4/v1model.p4 has a checker (`EXTERN_CHECKS`, by
name) that types the arguments of the overload called (`check_calls.extern_overload`) and
makes the checks p4c and BMv2's back end make on them: result and checksum fields of
bit<W>, `HashAlgorithm`/`CloneType` constants, hash/checksum/log data that converts to a
list of fields, digest data, field lists of metadata fields, a constant `static_assert`.
Their emitters are in `externs.py`.

A checker returns the call's `ir.Argument`s in parameter order; an argument the emitter
reads as a constant (an enum member, a field-list index) holds its folded value.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import convert
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.values import is_compound
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    BOOL,
    INFINT,
    BitsT,
    BoolT,
    EnumT,
    ErrorT,
    StructT,
    TupleT,
    Type,
    VarbitT,
)

Args = tuple[I.Argument, ...]


class ExternFunctionChecker(CompilePass):
    """The arguments of extern function calls, by extern (`EXTERN_CHECKS`)."""

    USES = ("types", "exprs", "arguments")

    def check_extern_call(self, e: A.Call, name: str, pairs, scope) -> Args:
        return tuple(EXTERN_CHECKS[name](self, e, pairs, scope))

    # -- arguments -------------------------------------------------------------------
    def _value_arg(self, pairs, i, scope, want: Type | None = None) -> I.Argument:
        """Argument `i` read as a value of type `want` (converted to it unless compound)."""
        p, a = pairs[i]
        v = self.exprs.check(a.value, scope, want)
        if want is not None and not is_compound(want):
            v = convert(v, want, a.loc)
        return I.Argument(p.direction, v.type, v, a.loc)

    def _lvalue_arg(self, pairs, i, scope) -> I.Argument:
        p, a = pairs[i]
        v = self.arguments.check_lvalue(a.value, scope)
        return I.Argument(p.direction, v.type, v, a.loc)

    def _enum_arg(self, pairs, i, scope, enum_name: str) -> I.Argument:
        """A member of enum `enum_name` (the argument holds its folded value)."""
        p, a = pairs[i]
        v = fold(self.exprs.check(a.value, scope))
        if not isinstance(v.type, EnumT) or v.type.name != enum_name or v.const is None:
            raise P4CompileError(a.value.loc, f"expected a {enum_name} constant")
        return I.Argument(p.direction, v.type, v, a.loc)

    def _index_arg(self, pairs, i, scope) -> I.Argument:
        """A compile-time integer (a field list's index)."""
        p, a = pairs[i]
        v = I.Constant(INFINT, a.value.loc, const=self.exprs.const_int(a.value, scope))
        return I.Argument(p.direction, INFINT, v, a.loc)

    def _data_arg(self, pairs, i, scope) -> I.Argument:
        """Hash/checksum data: BMv2's back end (createCalculation) must turn it into a list
        of fields."""
        arg = self._value_arg(pairs, i, scope)
        v = fold(arg.value)
        if not (isinstance(v.type, StructT | TupleT) or isinstance(v, I.ListExpr | I.StructExpr)):
            raise P4CompileError(pairs[i][1].value.loc, f"data of type {v.type}: expected a struct "
                                                        "(a list or struct of fields)")
        check_field_data(v, pairs[i][1].value.loc)
        return arg

    def _field_list_arg(self, pairs, i, scope) -> I.Argument:
        """The fields clone3/resubmit/recirculate preserve: metadata fields (lists of)."""
        arg = self._value_arg(pairs, i, scope)
        _check_field_list(pairs[i][1].value, fold(arg.value))
        return arg

    # -- the extern functions --------------------------------------------------------
    def _check_verify(self, e, pairs, scope) -> Args:
        return self._value_arg(pairs, 0, scope, BOOL), self._value_arg(pairs, 1, scope)

    def _check_static_assert(self, e, pairs, scope) -> Args:
        c = self._value_arg(pairs, 0, scope, BOOL)
        value = fold(c.value).const
        if not isinstance(value, bool):
            raise P4CompileError(pairs[0][1].loc, "static_assert: condition is not a compile-time constant")
        if not value:
            msg = pairs[1][1].value.value if len(pairs) > 1 and isinstance(pairs[1][1].value, A.StrLit) else None
            raise P4CompileError(e.loc, f"static_assert failed: {msg or 'static assertion failed'}")
        return (c,)

    def _check_mark_to_drop(self, e, pairs, scope) -> Args:
        if not pairs:
            return ()
        sm = self._lvalue_arg(pairs, 0, scope)
        if not isinstance(sm.type, StructT) or sm.type.name != "standard_metadata_t":
            raise P4CompileError(pairs[0][1].loc, f"mark_to_drop: expected standard_metadata_t, got {sm.type}")
        return (sm,)

    def _check_hash(self, e, pairs, scope) -> Args:
        res = self._lvalue_arg(pairs, 0, scope)
        if not isinstance(res.type, BitsT):
            raise P4CompileError(e.loc, f"hash: result must be bit<W>, got {res.type}")
        algo = self._enum_arg(pairs, 1, scope, "HashAlgorithm")
        base = self._plain_arg(pairs, 2, scope, res.type)
        data = self._data_arg(pairs, 3, scope)
        mx = self._plain_arg(pairs, 4, scope, res.type)
        _check_algorithm(algo, e.loc)
        return res, algo, base, data, mx

    def _plain_arg(self, pairs, i, scope, want: Type) -> I.Argument:
        """Argument `i` typed with `want` as its context, not converted to it."""
        p, a = pairs[i]
        v = self.exprs.check(a.value, scope, want)
        return I.Argument(p.direction, v.type, v, a.loc)

    def _check_verify_checksum(self, e, pairs, scope) -> Args:
        """verify_checksum and verify_checksum_with_payload."""
        return self._check_checksum(e, pairs, scope, verify=True)

    def _check_update_checksum(self, e, pairs, scope) -> Args:
        """update_checksum and update_checksum_with_payload."""
        return self._check_checksum(e, pairs, scope, verify=False)

    def _check_checksum(self, e, pairs, scope, verify: bool) -> Args:
        cond = self._value_arg(pairs, 0, scope, BOOL)
        data = self._data_arg(pairs, 1, scope)
        ck = self._value_arg(pairs, 2, scope) if verify else self._lvalue_arg(pairs, 2, scope)
        if not isinstance(ck.type, BitsT):
            raise P4CompileError(pairs[2][1].value.loc, f"checksum must be bit<W>, got {ck.type}")
        algo = self._enum_arg(pairs, 3, scope, "HashAlgorithm")
        _check_algorithm(algo, e.loc)
        return cond, data, ck, algo

    def _check_random(self, e, pairs, scope) -> Args:
        res = self._lvalue_arg(pairs, 0, scope)
        return res, self._value_arg(pairs, 1, scope, res.type), self._value_arg(pairs, 2, scope, res.type)

    def _check_digest(self, e, pairs, scope) -> Args:
        receiver = self._value_arg(pairs, 0, scope, BitsT(32))
        want = self.types.resolve(e.type_args[0], scope) if e.type_args else None
        data = self._plain_arg(pairs, 1, scope, want)
        t = data.value.type
        if isinstance(t, TupleT):  # p4c takes a list expression as a tuple-typed digest
            fields = [(f"field_{i}", it) for i, it in enumerate(t.items)]
        elif isinstance(t, StructT) and t.kind in ("struct", "header"):
            fields = t.fields
        else:
            raise P4CompileError(e.loc, f"digest: data must be a struct, header or list, not {t}")
        for fname, ftype in fields:  # serializable enums, or bit<32> for the others in BMv2
            if not isinstance(ftype, BitsT | BoolT | EnumT | ErrorT):
                raise unsupported(e.loc, f"digest field {fname} of type {ftype}")
        return receiver, data

    def _check_clone(self, e, pairs, scope) -> Args:
        return self._enum_arg(pairs, 0, scope, "CloneType"), self._value_arg(pairs, 1, scope, BitsT(32))

    def _check_clone3(self, e, pairs, scope) -> Args:
        return *self._check_clone(e, pairs, scope), self._field_list_arg(pairs, 2, scope)

    def _check_clone_preserving_field_list(self, e, pairs, scope) -> Args:
        return *self._check_clone(e, pairs, scope), self._index_arg(pairs, 2, scope)

    def _check_preserving_field_list(self, e, pairs, scope) -> Args:
        """resubmit_/recirculate_preserving_field_list."""
        return (self._index_arg(pairs, 0, scope),)

    def _check_field_list_extern(self, e, pairs, scope) -> Args:
        """resubmit and recirculate (of a list of fields)."""
        return (self._field_list_arg(pairs, 0, scope),)

    def _check_truncate(self, e, pairs, scope) -> Args:
        return (self._value_arg(pairs, 0, scope, BitsT(32)),)

    def _check_condition(self, e, pairs, scope) -> Args:
        """assert and assume."""
        return (self._value_arg(pairs, 0, scope, BOOL),)

    def _check_log_msg(self, e, pairs, scope) -> Args:
        msg = self._value_arg(pairs, 0, scope)
        if fold(msg.value).const is None:
            raise P4CompileError(e.loc, "log_msg: the message must be a string literal")
        if len(pairs) == 1:
            return (msg,)
        data = self._value_arg(pairs, 1, scope)
        if not isinstance(data.type, BoolT):
            check_field_data(fold(data.value), e.loc)
        return msg, data


def _check_algorithm(algo: I.Argument, loc) -> None:
    if algo.type.members[algo.value.const] == "random":
        raise unsupported(loc, "HashAlgorithm.random (BMv2 has no 'random' hash)")


def check_field_data(v: I.Expr, loc) -> None:
    """Every part of (folded) `v` is a field BMv2 can hash, checksum or log: bits, bool,
    an enum or error, a varbit, or a struct/tuple/list of them."""
    if isinstance(v, I.ListExpr):
        for item in v.items:
            check_field_data(item, loc)
    elif isinstance(v, I.StructExpr):
        for item in v.values:
            check_field_data(item, loc)
    else:
        _check_field_type(v.type, loc)


def _check_field_type(t: Type, loc) -> None:
    if isinstance(t, StructT):
        for _, ftype in t.fields:
            _check_field_type(ftype, loc)
    elif isinstance(t, TupleT):
        for it in t.items:
            _check_field_type(it, loc)
    elif not isinstance(t, BitsT | BoolT | EnumT | ErrorT | VarbitT):
        raise P4CompileError(loc, f"cannot use a value of type {t} as hash/checksum data")


def _check_field_list(e: A.Expr, v: I.Expr) -> None:
    """A field list (AST `e`, folded IR `v`): lists of fields of variables (metadata)."""
    if isinstance(v, I.ListExpr):
        for sub_e, sub_v in zip(e.items, v.items, strict=True):
            _check_field_list(sub_e, sub_v)
        return
    if isinstance(e, A.ListExpr) and not e.items:
        return
    root = e
    while isinstance(root, A.Member):
        root = root.expr
    if not isinstance(root, A.Path):
        raise unsupported(e.loc, "field list entry that is not a metadata field")


# the checker of each extern function, by P4 name; called as check(the
# ExternFunctionChecker, e, pairs, scope) with the arguments bound to the parameters of the
# overload the call chose (`bind_args`)
EXTERN_CHECKS: dict[str, Callable[..., Args]] = {
    "verify": ExternFunctionChecker._check_verify,
    "static_assert": ExternFunctionChecker._check_static_assert,
    "mark_to_drop": ExternFunctionChecker._check_mark_to_drop,
    "hash": ExternFunctionChecker._check_hash,
    "verify_checksum": ExternFunctionChecker._check_verify_checksum,
    "verify_checksum_with_payload": ExternFunctionChecker._check_verify_checksum,
    "update_checksum": ExternFunctionChecker._check_update_checksum,
    "update_checksum_with_payload": ExternFunctionChecker._check_update_checksum,
    "random": ExternFunctionChecker._check_random,
    "digest": ExternFunctionChecker._check_digest,
    "clone": ExternFunctionChecker._check_clone,
    "clone_preserving_field_list": ExternFunctionChecker._check_clone_preserving_field_list,
    "clone3": ExternFunctionChecker._check_clone3,
    "resubmit_preserving_field_list": ExternFunctionChecker._check_preserving_field_list,
    "recirculate_preserving_field_list": ExternFunctionChecker._check_preserving_field_list,
    "resubmit": ExternFunctionChecker._check_field_list_extern,
    "recirculate": ExternFunctionChecker._check_field_list_extern,
    "truncate": ExternFunctionChecker._check_truncate,
    "assert": ExternFunctionChecker._check_condition,
    "assume": ExternFunctionChecker._check_condition,
    "log_msg": ExternFunctionChecker._check_log_msg,
}
