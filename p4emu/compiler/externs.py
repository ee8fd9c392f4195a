"""Calls of core/v1model extern functions (mixin of `ProgramGen`): `verify`, hashes and
checksums, clone/resubmit/recirculate and their field lists, digests, `random`, ...,
dispatched by name through `EXTERN_FUNCTIONS`. Methods of extern objects are in
`extern_objects.py`.

Generated code calls helpers of `p4emu.v1model.support` and the per-packet state `PS`.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.values import V, is_compound
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
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


class ExternGen:
    # -- arguments: enum constants, hash/checksum data ---------------------------------
    def enum_const(self, e: A.Expr, scope, fn, enum_name: str) -> str:
        v = self.expr(e, scope, fn)
        if not isinstance(v.ty, EnumT) or v.ty.name != enum_name or v.const is None:
            raise P4CompileError(e.loc, f"expected a {enum_name} constant")
        return v.ty.members[v.const]

    def field_list(self, e: A.Expr, scope, fn) -> list[tuple[str, int | str]]:
        """The (Python value, width) pairs of `e` for hashing/checksums."""
        v = self.expr(e, scope, fn)
        if not (isinstance(v.ty, StructT | TupleT)
                or isinstance(v.ref, tuple) and v.ref[0] in ("list", "struct")):
            # BMv2's back end (createCalculation): the data must convert to a list
            raise P4CompileError(e.loc, f"data of type {v.ty}: expected a struct "
                                        "(a list or struct of fields)")
        items: list[tuple[str, int | str]] = []
        self._flatten(v, e.loc, items, fn)
        return items

    def packed_bytes(self, e: A.Expr, scope, fn) -> str:
        """Python expression of the hash/checksum input bytes of `e` (`pack_fields`), with
        the shifts worked out here when every width is known."""
        items = self.field_list(e, scope, fn)
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

    def _flatten(self, v: V, loc, items: list[tuple[str, int | str]], fn) -> None:
        t = v.ty
        if isinstance(v.ref, tuple) and v.ref[0] in ("list", "struct"):
            for sub in v.ref[1]:
                self._flatten(sub, loc, items, fn)
            return
        if isinstance(t, BitsT):
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
                self._flatten(V(f"{v.py}.f_{fname}", ftype), loc, items, fn)
        elif isinstance(t, TupleT):
            for i, it in enumerate(t.items):
                self._flatten(V(f"{v.py}[{i}]", it), loc, items, fn)
        else:
            raise P4CompileError(loc, f"cannot use a value of type {t} as hash/checksum data")

    def _hash_fn(self, algo: str, loc) -> str:
        if algo == "random":
            raise unsupported(loc, "HashAlgorithm.random (BMv2 has no 'random' hash)")
        return f"HASH_{algo}"

    def store_if(self, cond: str, lv: V, value_py: str, fn) -> None:
        fn.emit(f"if {cond}:")
        fn.indent += 1
        self.store(lv, value_py, fn)
        fn.indent -= 1

    # -- extern functions (called by `calls.py` with their overload's arguments) ----------
    def _arg(self, pairs, i, scope, fn, want: Type | None = None) -> V:
        p, a = pairs[i]
        v = self.expr(a.value, scope, fn, want)
        return self.coerce(v, want, a.loc) if want is not None and not is_compound(want) else v

    def _extern_verify(self, e, pairs, scope, fn):
        c = self._arg(pairs, 0, scope, fn, BOOL)
        err = self._arg(pairs, 1, scope, fn)
        fn.emit(f"if not {c.py}: raise ParserError({err.py})")

    def _extern_static_assert(self, e, pairs, scope, fn):
        c = self._arg(pairs, 0, scope, fn, BOOL)
        if not isinstance(c.const, bool):
            raise P4CompileError(pairs[0][1].loc, "static_assert: condition is not a compile-time constant")
        if not c.const:
            msg = pairs[1][1].value.value if len(pairs) > 1 and isinstance(pairs[1][1].value, A.StrLit) else None
            raise P4CompileError(e.loc, f"static_assert failed: {msg or 'static assertion failed'}")
        return V("True", BOOL, True)

    def _extern_mark_to_drop(self, e, pairs, scope, fn):
        if pairs:
            sm = self.lvalue(pairs[0][1].value, scope, fn)
            if not isinstance(sm.ty, StructT) or sm.ty.name != "standard_metadata_t":
                raise P4CompileError(pairs[0][1].loc, f"mark_to_drop: expected standard_metadata_t, got {sm.ty}")
        else:
            sm = V("PS.sm", None)
        fn.emit(f"{sm.py}.f_egress_spec = 511")
        fn.emit(f"{sm.py}.f_mcast_grp = 0")

    def _extern_hash(self, e, pairs, scope, fn):
        res = self.lvalue(pairs[0][1].value, scope, fn)
        if not isinstance(res.ty, BitsT):
            raise P4CompileError(e.loc, f"hash: result must be bit<W>, got {res.ty}")
        algo = self.enum_const(pairs[1][1].value, scope, fn, "HashAlgorithm")
        base = self.expr(pairs[2][1].value, scope, fn, res.ty)
        data = self.packed_bytes(pairs[3][1].value, scope, fn)
        mx = self.expr(pairs[4][1].value, scope, fn, res.ty)
        h = self._hash_fn(algo, e.loc)
        if (isinstance(base.const, int) and isinstance(mx.const, int) and mx.const
                and not isinstance(base.const, bool) and res.ty.width <= 64):
            # hash_value inlined: its 64-bit wrap is within the result's mask
            value = f"{h}({data}) % ({mx.py})"
            if base.const:
                value = f"({base.py}) + {value}"
            self.store(res, f"({value}) & {res.ty.mask}", fn)
            return
        self.store(res, f"hash_bytes({h}, {base.py}, {data}, {mx.py}) & {res.ty.mask}", fn)

    def _checksum(self, e, pairs, scope, fn, verify: bool, payload: bool):
        cond = self._arg(pairs, 0, scope, fn, BOOL)
        data = self.packed_bytes(pairs[1][1].value, scope, fn)
        ck_expr = pairs[2][1].value
        ck = self.lvalue(ck_expr, scope, fn) if not verify else self.expr(ck_expr, scope, fn)
        if not isinstance(ck.ty, BitsT):
            raise P4CompileError(ck_expr.loc, f"checksum must be bit<W>, got {ck.ty}")
        algo = self.enum_const(pairs[3][1].value, scope, fn, "HashAlgorithm")
        h = self._hash_fn(algo, e.loc)
        valid = ""
        if isinstance(ck_expr, A.Member) and isinstance(ck_expr.expr.ty, StructT) and ck_expr.expr.ty.kind == "header":
            valid = f" and {self.expr(ck_expr.expr, scope, fn).py}.valid"
        pl = " + PS.payload" if payload else ""
        value = f"({h}({data}{pl}) & {ck.ty.mask})"
        if verify:
            fn.emit(f"if {cond.py}{valid} and {value} != {ck.py}: PS.checksum_error = 1")
        else:
            self.store_if(f"{cond.py}{valid}", ck, value, fn)

    def _extern_verify_checksum(self, e, pairs, scope, fn):
        self._checksum(e, pairs, scope, fn, True, False)

    def _extern_verify_checksum_with_payload(self, e, pairs, scope, fn):
        self._checksum(e, pairs, scope, fn, True, True)

    def _extern_update_checksum(self, e, pairs, scope, fn):
        self._checksum(e, pairs, scope, fn, False, False)

    def _extern_update_checksum_with_payload(self, e, pairs, scope, fn):
        self._checksum(e, pairs, scope, fn, False, True)

    def _extern_random(self, e, pairs, scope, fn):
        res = self.lvalue(pairs[0][1].value, scope, fn)
        lo = self._arg(pairs, 1, scope, fn, res.ty)
        hi = self._arg(pairs, 2, scope, fn, res.ty)
        tmp = fn.fresh("rnd")
        fn.emit(f"{tmp} = random_value({lo.py}, {hi.py})")
        self.store_if(f"{tmp} is not None", res, tmp, fn)

    def _extern_digest(self, e, pairs, scope, fn):
        self._arg(pairs, 0, scope, fn, BitsT(32))
        want = self.resolve_type(e.type_args[0], scope) if e.type_args else None
        v = self.expr(pairs[1][1].value, scope, fn, want)
        src = fn.fresh("dg")
        fn.emit(f"{src} = {v.py}")
        if isinstance(v.ty, TupleT):
            # p4c takes a list expression as a tuple-typed digest: fields by position
            t = self._tuple_digest_type(v.ty)
            reads = [f"{src}[{i}]" for i in range(len(v.ty.items))]
        elif isinstance(v.ty, StructT) and v.ty.kind in ("struct", "header"):
            t = v.ty
            reads = [f"{src}.f_{fname}" for fname, _ in t.fields]
        else:
            raise P4CompileError(e.loc, f"digest: data must be a struct, header or list, not {v.ty}")
        self.out.digest_types[t.name] = t
        vals = []
        for (fname, ftype), read in zip(t.fields, reads, strict=True):
            if isinstance(ftype, BitsT):
                vals.append(f"{read} & {ftype.mask}" if ftype.signed else read)
            elif isinstance(ftype, BoolT):
                vals.append(f"int({read})")
            elif isinstance(ftype, (EnumT, ErrorT)):  # serializable, or bit<32> in BMv2
                vals.append(read)
            else:
                raise unsupported(e.loc, f"digest field {fname} of type {ftype}")
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

    def _clone_type(self, expr, scope, fn) -> int:
        name = self.enum_const(expr, scope, fn, "CloneType")
        return 1 if name == "I2E" else 2

    def _extern_clone(self, e, pairs, scope, fn):
        kind = self._clone_type(pairs[0][1].value, scope, fn)
        sess = self._arg(pairs, 1, scope, fn, BitsT(32))
        fn.emit(f"PS.request_clone({kind}, {sess.py}, 0)")

    def _extern_clone_preserving_field_list(self, e, pairs, scope, fn):
        kind = self._clone_type(pairs[0][1].value, scope, fn)
        sess = self._arg(pairs, 1, scope, fn, BitsT(32))
        idx = self.const_int(pairs[2][1].value, scope)
        fn.emit(f"PS.request_clone({kind}, {sess.py}, {self.field_list_ref(idx)})")

    def _extern_clone3(self, e, pairs, scope, fn):
        kind = self._clone_type(pairs[0][1].value, scope, fn)
        sess = self._arg(pairs, 1, scope, fn, BitsT(32))
        fl = self.anonymous_field_list(pairs[2][1].value, scope, fn)
        fn.emit(f"PS.request_clone({kind}, {sess.py}, {fl})")

    def _extern_resubmit_preserving_field_list(self, e, pairs, scope, fn):
        idx = self.const_int(pairs[0][1].value, scope)
        fn.emit(f"PS.resubmit = {self.field_list_ref(idx)}")

    def _extern_recirculate_preserving_field_list(self, e, pairs, scope, fn):
        idx = self.const_int(pairs[0][1].value, scope)
        fn.emit(f"PS.recirculate = {self.field_list_ref(idx)}")

    def _extern_resubmit(self, e, pairs, scope, fn):
        fl = self.anonymous_field_list(pairs[0][1].value, scope, fn)
        fn.emit(f"PS.resubmit = {fl}")

    def _extern_recirculate(self, e, pairs, scope, fn):
        fl = self.anonymous_field_list(pairs[0][1].value, scope, fn)
        fn.emit(f"PS.recirculate = {fl}")

    def _extern_truncate(self, e, pairs, scope, fn):
        n = self._arg(pairs, 0, scope, fn, BitsT(32))
        fn.emit(f"PS.request_truncate({n.py})")

    def _extern_assert(self, e, pairs, scope, fn):
        c = self._arg(pairs, 0, scope, fn, BOOL)
        fn.emit(f"if not {c.py}: assertion_failed({str(e.loc)!r}, 'assert')")

    def _extern_assume(self, e, pairs, scope, fn):
        c = self._arg(pairs, 0, scope, fn, BOOL)
        fn.emit(f"if not {c.py}: assertion_failed({str(e.loc)!r}, 'assume')")

    def _extern_log_msg(self, e, pairs, scope, fn):
        msg = self.expr(pairs[0][1].value, scope, fn)
        if msg.const is None:
            raise P4CompileError(e.loc, "log_msg: the message must be a string literal")
        if len(pairs) == 2:
            v = self.expr(pairs[1][1].value, scope, fn)
            items: list[tuple[str, int | str]] = []
            self._flatten(v, e.loc, items, fn) if not isinstance(v.ty, BoolT) else items.append((f"int({v.py})", 1))
            pairs_py = "".join(f"({py}, {w}), " for py, w in items)
            fn.emit(f"log_msg({msg.const!r}, tuple(x for x, _ in ({pairs_py})))")
        else:
            fn.emit(f"log_msg({msg.const!r}, ())")

    # -- field lists -------------------------------------------------------------------
    def field_list_ref(self, idx: int) -> str:
        self.out.used_field_lists.add(idx)
        return f"FIELD_LISTS.get({idx}, NO_FIELDS)"

    def anonymous_field_list(self, expr: A.Expr, scope, fn) -> str:
        v = self.expr(expr, scope, fn)
        paths: list[str] = []
        self._lvalue_paths(expr, v, paths)
        key = 1000 + len(self.out.anon_field_lists)
        self.out.anon_field_lists[key] = paths
        return f"FIELD_LISTS.get({key}, NO_FIELDS)"

    def _lvalue_paths(self, expr: A.Expr, v: V, out: list[str]) -> None:
        if isinstance(v.ref, tuple) and v.ref[0] == "list":
            for sub_e, sub_v in zip(expr.items, v.ref[1], strict=True):
                self._lvalue_paths(sub_e, sub_v, out)
            return
        if isinstance(expr, A.ListExpr) and not expr.items:
            return
        root = expr
        while isinstance(root, A.Member):
            root = root.expr
        if not isinstance(root, A.Path):
            raise unsupported(expr.loc, "field list entry that is not a metadata field")
        if isinstance(v.ty, StructT):
            for fname, ftype in v.ty.fields:
                self._lvalue_paths_struct(f"{v.py}.f_{fname}", ftype, out)
            return
        out.append(v.py)

    def _lvalue_paths_struct(self, py: str, t: Type, out: list[str]) -> None:
        if isinstance(t, StructT):
            for fname, ftype in t.fields:
                self._lvalue_paths_struct(f"{py}.f_{fname}", ftype, out)
        else:
            out.append(py)


# the generator of each extern function, by P4 name; called as gen(self, e, pairs, scope, fn)
# with the arguments bound to the parameters of the overload the call chose (`bind_args`)
EXTERN_FUNCTIONS: dict[str, Callable[..., V | None]] = {
    "verify": ExternGen._extern_verify,
    "static_assert": ExternGen._extern_static_assert,
    "mark_to_drop": ExternGen._extern_mark_to_drop,
    "hash": ExternGen._extern_hash,
    "verify_checksum": ExternGen._extern_verify_checksum,
    "verify_checksum_with_payload": ExternGen._extern_verify_checksum_with_payload,
    "update_checksum": ExternGen._extern_update_checksum,
    "update_checksum_with_payload": ExternGen._extern_update_checksum_with_payload,
    "random": ExternGen._extern_random,
    "digest": ExternGen._extern_digest,
    "clone": ExternGen._extern_clone,
    "clone_preserving_field_list": ExternGen._extern_clone_preserving_field_list,
    "clone3": ExternGen._extern_clone3,
    "resubmit_preserving_field_list": ExternGen._extern_resubmit_preserving_field_list,
    "recirculate_preserving_field_list": ExternGen._extern_recirculate_preserving_field_list,
    "resubmit": ExternGen._extern_resubmit,
    "recirculate": ExternGen._extern_recirculate,
    "truncate": ExternGen._extern_truncate,
    "assert": ExternGen._extern_assert,
    "assume": ExternGen._extern_assume,
    "log_msg": ExternGen._extern_log_msg,
}
