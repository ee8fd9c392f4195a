"""Calls of core/v1model extern functions (`ExternFunctionEmitter`, a pass of `ProgramGen`):
`verify`, hashes and checksums, clone/resubmit/recirculate and their field lists,
digests, `random`, ..., dispatched by name through `EXTERN_FUNCTIONS`. Methods of extern
objects are in `extern_objects.py`.

Generated code calls helpers of `p4emu.v1model.support` and the per-packet state `PS`.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.assignments import store, store_if
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.values import V
from p4emu.ir import expressions as I
from p4emu.lang.types import (
    BOOL,
    BitsT,
    BoolT,
    EnumT,
    ErrorT,
    StructT,
    TupleT,
    Type,
    VarbitT,
)


class ExternFunctionEmitter(CompilePass):
    """The calls of extern functions, with their checked arguments."""

    USES = ("exprs",)

    # -- arguments: hash/checksum data ---------------------------------------------------
    def _value(self, a: I.Argument, fn) -> V:
        return self.exprs.emit(fold(a.value), fn)

    def field_list(self, a: I.Argument, fn) -> list[tuple[str, int | str]]:
        """The (Python value, width) pairs of data `a` for hashing/checksums."""
        items: list[tuple[str, int | str]] = []
        self._flatten(self._value(a, fn), items)
        return items

    def packed_bytes(self, a: I.Argument, fn) -> str:
        """Python expression of the hash/checksum input bytes of `a` (`pack_fields`), with
        the shifts worked out here when every width is known."""
        items = self.field_list(a, fn)
        if not all(isinstance(w, int) for _, w in items):
            return "pack_fields((" + "".join(f"({py}, {w}), " for py, w in items) + "))"
        total = sum(w for _, w in items)  # type: ignore[misc]
        pad = (-total) % 8
        terms = []
        shift = total + pad
        for py, w in items:
            shift -= w  # type: ignore[operator]
            if w:
                term = f"(({py}) & {(1 << w) - 1})"  # type: ignore[operator]
                terms.append(f"({term} << {shift})" if shift else term)
        if not terms:
            return 'b""'
        return f"({' | '.join(terms)}).to_bytes({(total + pad) // 8}, 'big')"

    def _flatten(self, v: V, items: list[tuple[str, int | str]]) -> None:
        """The fields of `v` (checked by `check_externs.check_field_data`), in order."""
        t = v.ty
        if isinstance(v.ref, tuple) and v.ref[0] in ("list", "struct"):
            for sub in v.ref[1]:
                self._flatten(sub, items)
        elif isinstance(t, BitsT):
            py = f"({v.py} & {t.mask})" if t.signed else v.py
            items.append((py, t.width))
        elif isinstance(t, BoolT):
            items.append((f"int({v.py})", 1))
        elif isinstance(t, EnumT) and t.underlying is not None:
            items.append((v.py, t.underlying.width))
        elif isinstance(t, (EnumT, ErrorT)):
            # p4c's BMv2 mid end makes plain enums and errors bit<32> (EnumOn32Bits, errorWidth)
            items.append((v.py, 32))
        elif isinstance(t, VarbitT):
            items.append((f"{v.py}[1]", f"{v.py}[0]"))
        elif isinstance(t, StructT):
            for fname, ftype in t.fields:
                self._flatten(V(f"{v.py}.f_{fname}", ftype), items)
        else:
            for i, it in enumerate(t.items):
                self._flatten(V(f"{v.py}[{i}]", it), items)

    # -- extern functions (called by the `CallEmitter` with their checked arguments) -------------
    def _extern_verify(self, e: I.Call, fn):
        c, err = (self._value(a, fn) for a in e.args)
        fn.emit(f"if not {c.py}: raise ParserError({err.py})")

    def _extern_static_assert(self, e: I.Call, fn):
        return V("True", BOOL, True)  # `check_externs` proved it

    def _extern_mark_to_drop(self, e: I.Call, fn):
        sm = self.exprs.emit_lvalue(e.args[0].value, fn) if e.args else V("PS.sm", None)
        fn.emit(f"{sm.py}.f_egress_spec = 511")
        fn.emit(f"{sm.py}.f_mcast_grp = 0")

    def _extern_hash(self, e: I.Call, fn):
        res_a, algo, base_a, data_a, mx_a = e.args
        res = self.exprs.emit_lvalue(res_a.value, fn)
        base = self._value(base_a, fn)
        data = self.packed_bytes(data_a, fn)
        mx = self._value(mx_a, fn)
        h = _hash_fn(algo)
        if (isinstance(base.const, int) and isinstance(mx.const, int) and mx.const
                and not isinstance(base.const, bool) and res.ty.width <= 64):
            # hash_value inlined: its 64-bit wrap is within the result's mask
            value = f"{h}({data}) % ({mx.py})"
            if base.const:
                value = f"({base.py}) + {value}"
            store(res, f"({value}) & {res.ty.mask}", fn)
            return
        store(res, f"hash_bytes({h}, {base.py}, {data}, {mx.py}) & {res.ty.mask}", fn)

    def _checksum(self, e: I.Call, fn, verify: bool, payload: bool):
        cond_a, data_a, ck_a, algo = e.args
        cond = self._value(cond_a, fn)
        data = self.packed_bytes(data_a, fn)
        ck = self._value(ck_a, fn) if verify else self.exprs.emit_lvalue(ck_a.value, fn)
        h = _hash_fn(algo)
        valid = ""
        field = ck_a.value
        if isinstance(field, I.Field) and isinstance(field.base.type, StructT) and field.base.type.kind == "header":
            valid = f" and {self.exprs.emit(fold(field.base), fn).py}.valid"
        pl = " + PS.payload" if payload else ""
        value = f"({h}({data}{pl}) & {ck.ty.mask})"
        if verify:
            fn.emit(f"if {cond.py}{valid} and {value} != {ck.py}: PS.checksum_error = 1")
        else:
            store_if(f"{cond.py}{valid}", ck, value, fn)

    def _extern_verify_checksum(self, e, fn):
        self._checksum(e, fn, True, False)

    def _extern_verify_checksum_with_payload(self, e, fn):
        self._checksum(e, fn, True, True)

    def _extern_update_checksum(self, e, fn):
        self._checksum(e, fn, False, False)

    def _extern_update_checksum_with_payload(self, e, fn):
        self._checksum(e, fn, False, True)

    def _extern_random(self, e: I.Call, fn):
        res = self.exprs.emit_lvalue(e.args[0].value, fn)
        lo, hi = (self._value(a, fn) for a in e.args[1:])
        tmp = fn.fresh("rnd")
        fn.emit(f"{tmp} = random_value({lo.py}, {hi.py})")
        store_if(f"{tmp} is not None", res, tmp, fn)

    def _extern_digest(self, e: I.Call, fn):
        self._value(e.args[0], fn)  # the receiver: BMv2 has one, the controller
        v = self._value(e.args[1], fn)
        src = fn.fresh("dg")
        fn.emit(f"{src} = {v.py}")
        if isinstance(v.ty, TupleT):
            # p4c takes a list expression as a tuple-typed digest: fields by position
            t = self._tuple_digest_type(v.ty)
            reads = [f"{src}[{i}]" for i in range(len(v.ty.items))]
        else:
            t = v.ty
            reads = [f"{src}.f_{fname}" for fname, _ in t.fields]
        self.out.digest_types[t.name] = t
        vals = []
        for (_, ftype), read in zip(t.fields, reads, strict=True):
            if isinstance(ftype, BitsT):
                vals.append(f"{read} & {ftype.mask}" if ftype.signed else read)
            elif isinstance(ftype, BoolT):
                vals.append(f"int({read})")
            else:  # an enum or error: serializable, or bit<32> in BMv2
                vals.append(read)
        fn.emit(f"PS.digest = (DIGEST_IDS[{t.name!r}], ({''.join(x + ', ' for x in vals)}))")

    def _tuple_digest_type(self, tt: TupleT) -> StructT:
        """A struct type standing for a digested list, one per distinct tuple type."""
        for name, t in self.out.digest_types.items():
            if name.startswith("tuple_") and [ft for _, ft in t.fields] == tt.items:
                return t
        k = sum(1 for n in self.out.digest_types if n.startswith("tuple_"))
        t = StructT("struct", f"tuple_{k}", [(f"field_{i}", it) for i, it in enumerate(tt.items)])
        t.digest_tuple = True  # P4Info describes it as a tuple type
        return t

    def _clone_args(self, e: I.Call, fn) -> tuple[int, V]:
        kind, session = e.args[:2]
        return (1 if _member(kind) == "I2E" else 2), self._value(session, fn)

    def _extern_clone(self, e: I.Call, fn):
        kind, sess = self._clone_args(e, fn)
        fn.emit(f"PS.request_clone({kind}, {sess.py}, 0)")

    def _extern_clone_preserving_field_list(self, e: I.Call, fn):
        kind, sess = self._clone_args(e, fn)
        fn.emit(f"PS.request_clone({kind}, {sess.py}, {self.field_list_ref(e.args[2].value.const)})")

    def _extern_clone3(self, e: I.Call, fn):
        kind, sess = self._clone_args(e, fn)
        fl = self.anonymous_field_list(e.args[2], fn)
        fn.emit(f"PS.request_clone({kind}, {sess.py}, {fl})")

    def _extern_resubmit_preserving_field_list(self, e: I.Call, fn):
        fn.emit(f"PS.resubmit = {self.field_list_ref(e.args[0].value.const)}")

    def _extern_recirculate_preserving_field_list(self, e: I.Call, fn):
        fn.emit(f"PS.recirculate = {self.field_list_ref(e.args[0].value.const)}")

    def _extern_resubmit(self, e: I.Call, fn):
        fn.emit(f"PS.resubmit = {self.anonymous_field_list(e.args[0], fn)}")

    def _extern_recirculate(self, e: I.Call, fn):
        fn.emit(f"PS.recirculate = {self.anonymous_field_list(e.args[0], fn)}")

    def _extern_truncate(self, e: I.Call, fn):
        fn.emit(f"PS.request_truncate({self._value(e.args[0], fn).py})")

    def _extern_assert(self, e: I.Call, fn):
        c = self._value(e.args[0], fn)
        fn.emit(f"if not {c.py}: assertion_failed({str(e.loc)!r}, 'assert')")

    def _extern_assume(self, e: I.Call, fn):
        c = self._value(e.args[0], fn)
        fn.emit(f"if not {c.py}: assertion_failed({str(e.loc)!r}, 'assume')")

    def _extern_log_msg(self, e: I.Call, fn):
        msg = self._value(e.args[0], fn)
        if len(e.args) == 2:
            v = self._value(e.args[1], fn)
            items: list[tuple[str, int | str]] = []
            self._flatten(v, items) if not isinstance(v.ty, BoolT) else items.append((f"int({v.py})", 1))
            pairs_py = "".join(f"({py}, {w}), " for py, w in items)
            fn.emit(f"log_msg({msg.const!r}, tuple(x for x, _ in ({pairs_py})))")
        else:
            fn.emit(f"log_msg({msg.const!r}, ())")

    # -- field lists -------------------------------------------------------------------
    def field_list_ref(self, idx: int) -> str:
        self.out.used_field_lists.add(idx)
        return f"FIELD_LISTS.get({idx}, NO_FIELDS)"

    def anonymous_field_list(self, a: I.Argument, fn) -> str:
        paths: list[str] = []
        value = fold(a.value)
        _field_paths(value, self.exprs.emit(value, fn), paths)
        key = 1000 + len(self.out.anon_field_lists)
        self.out.anon_field_lists[key] = paths
        return f"FIELD_LISTS.get({key}, NO_FIELDS)"


def _member(a: I.Argument) -> str:
    """The name of the enum member argument `a` holds."""
    return a.type.members[a.value.const]


def _hash_fn(algo: I.Argument) -> str:
    return f"HASH_{_member(algo)}"


def _field_paths(e: I.Expr, v: V, out: list[str]) -> None:
    """The Python paths of the fields of field list `e` (value `v`; checked by
    `check_externs`): a struct contributes its fields, an empty list nothing."""
    if isinstance(v.ref, tuple) and v.ref[0] == "list":
        for sub_e, sub_v in zip(e.items, v.ref[1], strict=True):
            _field_paths(sub_e, sub_v, out)
        return
    if isinstance(v.ty, TupleT) and not v.ty.items:
        return
    if isinstance(v.ty, StructT):
        for fname, ftype in v.ty.fields:
            _struct_paths(f"{v.py}.f_{fname}", ftype, out)
        return
    out.append(v.py)


def _struct_paths(py: str, t: Type, out: list[str]) -> None:
    if isinstance(t, StructT):
        for fname, ftype in t.fields:
            _struct_paths(f"{py}.f_{fname}", ftype, out)
    else:
        out.append(py)


# the emitter of each extern function, by P4 name; called as gen(the ExternFunctionEmitter,
# e, fn) with the call checked by `passes/check_externs.py`
EXTERN_FUNCTIONS: dict[str, Callable[..., V | None]] = {
    "verify": ExternFunctionEmitter._extern_verify,
    "static_assert": ExternFunctionEmitter._extern_static_assert,
    "mark_to_drop": ExternFunctionEmitter._extern_mark_to_drop,
    "hash": ExternFunctionEmitter._extern_hash,
    "verify_checksum": ExternFunctionEmitter._extern_verify_checksum,
    "verify_checksum_with_payload": ExternFunctionEmitter._extern_verify_checksum_with_payload,
    "update_checksum": ExternFunctionEmitter._extern_update_checksum,
    "update_checksum_with_payload": ExternFunctionEmitter._extern_update_checksum_with_payload,
    "random": ExternFunctionEmitter._extern_random,
    "digest": ExternFunctionEmitter._extern_digest,
    "clone": ExternFunctionEmitter._extern_clone,
    "clone_preserving_field_list": ExternFunctionEmitter._extern_clone_preserving_field_list,
    "clone3": ExternFunctionEmitter._extern_clone3,
    "resubmit_preserving_field_list": ExternFunctionEmitter._extern_resubmit_preserving_field_list,
    "recirculate_preserving_field_list": ExternFunctionEmitter._extern_recirculate_preserving_field_list,
    "resubmit": ExternFunctionEmitter._extern_resubmit,
    "recirculate": ExternFunctionEmitter._extern_recirculate,
    "truncate": ExternFunctionEmitter._extern_truncate,
    "assert": ExternFunctionEmitter._extern_assert,
    "assume": ExternFunctionEmitter._extern_assume,
    "log_msg": ExternFunctionEmitter._extern_log_msg,
}
