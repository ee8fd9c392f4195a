"""Typed IR statements and calls -> C (mixin of `p4emu.native.cgen.CGen`).

Every generated function returns int: 0, or -1 when a Python callback (random, a watch
port's liveness) raised, which the caller passes up. Table applies used as values are
hoisted into a temporary just before the statement (refused under `&&`, `||`, `?:`,
where hoisting would change whether the table is applied).
"""

from __future__ import annotations

from contextlib import contextmanager

from p4emu.compiler.scope import ActionB, ExternFuncB, FuncB, InstB
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.lang.types import BitsT, BoolT, EnumT, ErrorT, StackT, StructT, TupleT
from p4emu.native.cexpr import has_call, mask, scalar, unsigned
from p4emu.native.errors import refuse

HASHES = {"crc16": "p4_crc16", "crc32": "p4_crc32", "crc16_custom": "p4_crc16",
          "crc32_custom": "p4_crc32", "identity": "p4_identity", "csum16": "p4_csum16",
          "xor16": "p4_xor16"}
ERR = "return -1;"


def checked(call: str) -> str:
    """C running `call` and passing up its status: -1 an error, 1 `exit`."""
    return f"{{ int rc_ = {call}; if (rc_) return rc_; }}"


def ctype(t) -> str:
    st = scalar(t)
    return "int64_t" if isinstance(st, BitsT) and st.signed else "uint64_t"


class StmtC:
    """`self` is the `CGen`."""

    # -- output ---------------------------------------------------------------------------
    def line(self, s: str) -> None:
        self.lines.append("    " * self.ind + s)

    def fresh(self, base: str) -> str:
        self.uid += 1
        return f"{base}_{self.uid}"

    @contextmanager
    def lazy(self):
        self.in_lazy += 1
        try:
            yield
        finally:
            self.in_lazy -= 1

    def hoist_apply(self, call: I.Expr) -> str:
        if not isinstance(call, I.Call):
            raise refuse("a table result that is not an apply() call", call.loc)
        if self.in_lazy:
            raise refuse("a table applied inside &&, || or ?:", call.loc)
        r = self.fresh("r")
        self.line(f"tres_t {r};")
        self.apply_table(call, r)
        return r

    # -- statements ---------------------------------------------------------------------
    def stmt(self, s: S.Stmt) -> None:
        m = getattr(self, "_s_" + type(s).__name__, None)
        if m is None:
            raise refuse(f"the statement {type(s).__name__}", s.loc)
        m(s)

    def _s_Empty(self, s) -> None:
        pass

    def _s_Block(self, s: S.Block) -> None:
        self.line("{")
        self.ind += 1
        for x in s.stmts:
            self.stmt(x)
        self.ind -= 1
        self.line("}")

    def _declare(self, name: str, t, binding, init: I.Expr | None, loc) -> None:
        c = self.fresh("v_" + "".join(ch if ch.isalnum() else "_" for ch in name))
        if isinstance(t, StructT):
            self.line(f"{self.ctype_of(t)} {c}; memset(&{c}, 0, sizeof {c});")
            self.names[id(binding)] = c
            if init is not None:
                self.copy_struct(c, init, loc)
            return
        value = self.expr(init) if init is not None else "0"
        self.line(f"{ctype(t)} {c} = {value};")
        self.names[id(binding)] = c

    def copy_struct(self, target: str, value: I.Expr, loc) -> None:
        """`target = value` for a header or struct: a copy of another one (validity
        too), a list or `{f = ...}` expression (built apart first, as the Python `build`
        does, so `h = {h.b, h.a}` swaps), `{#}` or the default value."""
        if isinstance(value, (I.Field, I.VarRef)):
            self.line(f"{target} = {self.expr(value)};")
            return
        if isinstance(value, (I.InvalidHeader, I.DefaultValue)):
            self.line(f"memset(&{target}, 0, sizeof {target});")
            return
        if not isinstance(value, (I.ListExpr, I.StructExpr)) or has_call(value):
            raise refuse(f"a {value.type} value built from {type(value).__name__}", loc)
        t = value.type
        parts = value.items if isinstance(value, I.ListExpr) else value.values
        tmp = self.fresh("agg")
        self.line(f"{{ {self.ctype_of(t)} {tmp}; memset(&{tmp}, 0, sizeof {tmp});")
        self.ind += 1
        for (fname, ftype), part in zip(t.fields, parts, strict=True):
            if isinstance(ftype, StructT):
                self.copy_struct(f"{tmp}.f_{fname}", part, loc)
            else:
                self.line(f"{tmp}.f_{fname} = {self.expr(part)};")
        if t.kind == "header":
            self.line(f"{tmp}.valid = 1;")
        self.line(f"{target} = {tmp};")
        self.ind -= 1
        self.line("}")

    def _s_VarDecl(self, s: S.VarDecl) -> None:
        self._declare(s.name, s.type, s.binding, s.init, s.loc)

    def _s_ConstDecl(self, s: S.ConstDecl) -> None:
        self._declare(s.name, s.type, s.binding, s.value, s.loc)

    def _s_Assign(self, s: S.Assign) -> None:
        if s.index is not None:
            raise refuse("a header stack index", s.loc)
        t = s.target
        if isinstance(t.type, (StructT, StackT)):
            if s.value.type is not t.type and not isinstance(t.type, StackT):
                raise refuse(f"an assignment of {s.value.type} to {t.type}", s.loc)
            self.copy_struct(self.expr(t), s.value, s.loc)
            return
        if isinstance(t, I.Slice):
            bt = t.base.type
            if not isinstance(bt, BitsT) or bt.signed:
                raise refuse("a slice of a signed value as a target", s.loc)
            base = self.expr(t.base)
            value = self.expr(s.value)
            m = mask(t.hi - t.lo + 1)
            self.line(f"{base} = ({base} & ~({m} << {t.lo})) | ((({value}) & {m}) << {t.lo});")
            return
        target = self.expr(t)
        value = self.expr(s.value)
        self.line(f"{target} = {value};")

    def _s_Evaluate(self, s: S.Evaluate) -> None:
        self.line(f"(void)({self.expr(s.value)});")

    def _s_CallStatement(self, s: S.CallStatement) -> None:
        self.call(s.call)

    def _s_If(self, s: S.If) -> None:
        self.line(f"if ({self.expr(s.cond)}) {{")
        self.ind += 1
        self.stmt(s.then)
        self.ind -= 1
        if s.other is not None:
            self.line("} else {")
            self.ind += 1
            self.stmt(s.other)
            self.ind -= 1
        self.line("}")

    def _s_Switch(self, s: S.Switch) -> None:
        v = s.value
        if isinstance(v, I.ApplyResultMember) and v.name == "action_run":
            value = f"{self.hoist_apply(v.base)}.action_id"
        else:
            value = unsigned(self.expr(v), v.type)
        self.line(f"switch ((int64_t){value}) {{")
        for case in s.cases:
            for label in case.labels:
                if label is None:
                    self.line("default:")
                elif isinstance(label, I.CallableRef):
                    self.line(f"case {self.action_ids[label.binding.full_name]}:")
                else:
                    self.line(f"case {unsigned(self.expr(label), label.type)}:")
            if case.body is not None:
                self.ind += 1
                self.stmt(case.body)
                self.line("break;")
                self.ind -= 1
        self.line(";  /* a label needs a statement after it */")
        self.line("}")

    def _s_Exit(self, s: S.Exit) -> None:
        self.line("return 1; /* exit: every caller up to the control passes it up */")

    def _s_Return(self, s: S.Return) -> None:
        if s.value is not None:
            if self.ret_type is None:
                raise refuse("a return value outside a function", s.loc)
            if isinstance(self.ret_type, StructT):
                self.copy_struct("(*ret)", s.value, s.loc)
            else:
                self.line(f"*ret = {self.expr(s.value)};")
        self.line("return 0;")

    # -- calls --------------------------------------------------------------------------
    def call(self, e: I.Call) -> None:
        c = e.callee
        if isinstance(c, I.CallableRef):
            b = c.binding
            if isinstance(b, ActionB):
                self.call_action(b, e)
                return
            if isinstance(b, ExternFuncB):
                m = getattr(self, "_f_" + c.name, None)
                if m is None:
                    raise refuse(f"the extern function {c.name}", e.loc)
                m(e)
                return
            if isinstance(b, FuncB):
                self.call_function(b, e, as_value=False)
                return
            raise refuse(f"a call of {c.name} (sub-blocks)", e.loc)
        if isinstance(c, I.MethodRef):
            base = c.base
            bt = base.type
            if isinstance(bt, StructT) and bt.kind == "header" and c.name in ("setValid", "setInvalid"):
                self.set_validity(self.expr(base), bt, c.name == "setValid")
                return
            if isinstance(bt, StackT) and c.name in ("push_front", "pop_front"):
                self.push_pop(self.expr(base), bt, e.args[0].value.const, c.name == "push_front")
                return
            if isinstance(base, I.InstanceRef) and isinstance(base.binding, InstB):
                kind = base.binding.kind
                if kind == "table" and c.name == "apply":
                    self.line("{")
                    self.ind += 1
                    r = self.fresh("r")
                    self.line(f"tres_t {r};")
                    self.apply_table(e, r)
                    self.ind -= 1
                    self.line("}")
                    return
                self.extern_method(base.binding, c.name, e)
                return
            if getattr(bt, "name", "") in ("packet_in", "packet_out"):
                self.packet_method(c.name, e)
                return
            raise refuse(f"the method {c.name} of {bt}", e.loc)
        raise refuse("an indirect call", e.loc)

    def push_pop(self, s: str, t: StackT, n: int, push: bool) -> None:
        """`Stack.push_front` / `pop_front`: elements shift, new ones are invalid."""
        size = t.size
        n = min(int(n), size)
        if not n:
            return
        e = f"sizeof {s}.items[0]"
        if push:
            self.line(f"memmove(&{s}.items[{n}], &{s}.items[0], {size - n} * {e}); "
                      f"memset(&{s}.items[0], 0, {n} * {e}); "
                      f"{s}.nxt = {s}.nxt + {n} < {size} ? {s}.nxt + {n} : {size};")
        else:
            self.line(f"memmove(&{s}.items[0], &{s}.items[{n}], {size - n} * {e}); "
                      f"memset(&{s}.items[{size - n}], 0, {n} * {e}); "
                      f"{s}.nxt = {s}.nxt > {n} ? {s}.nxt - {n} : 0;")

    def set_validity(self, h: str, t: StructT, valid: bool) -> None:
        size = t.bit_width() // 8
        if valid:
            zero = "".join(f" {h}.f_{n} = 0;" for n, _ in t.fields)
            self.line(f"if (!{h}.valid) {{ P->len_delta += {size}; {h}.valid = 1;{zero} }}")
        else:
            self.line(f"if ({h}.valid) {{ P->len_delta -= {size}; {h}.valid = 0; }}")

    # -- extern objects -------------------------------------------------------------------
    def extern_method(self, b: InstB, name: str, e: I.Call) -> None:
        kind = b.kind if b.extern is None else b.extern.kind
        kind = getattr(b.ty, "name", kind)
        if kind == "counter" and name == "count":
            ci = self.counter_index(b.full_name)
            self.line(f"p4_count(st, {ci}, {self.expr(e.args[0].value)}, P->length);")
            return
        if kind == "register" and name in ("read", "write"):
            ri, width = self.register_index(b.full_name)
            if name == "read":
                res, idx = self.expr(e.args[0].value), self.expr(e.args[1].value)
                self.line(f"{{ uint64_t i_ = {idx}; if (i_ < (uint64_t)st->reg_n[{ri}]) "
                          f"{res} = st->reg[{ri}][i_]; }}")
            else:
                idx, val = self.expr(e.args[0].value), self.expr(e.args[1].value)
                self.line(f"{{ uint64_t i_ = {idx}; if (i_ < (uint64_t)st->reg_n[{ri}]) "
                          f"st->reg[{ri}][i_] = ((uint64_t)({val})) & {mask(width)}; }}")
            return
        raise refuse(f"{kind}.{name}()", e.loc)

    # -- extern functions -----------------------------------------------------------------
    def _f_mark_to_drop(self, e: I.Call) -> None:
        sm = self.expr(e.args[0].value) if e.args else "P->sm"
        self.line(f"{sm}.f_egress_spec = 511; {sm}.f_mcast_grp = 0;")

    def _f_verify(self, e: I.Call) -> None:
        if self.block_kind != "parser":
            raise refuse("verify() outside a parser", e.loc)
        cond, code = (self.expr(a.value) for a in e.args)
        self.line(f"if (!({cond})) {{ *err = (int)({code}); return 0; }}")

    def _f_static_assert(self, e: I.Call) -> None:
        pass  # proved at compile time (check_externs)

    def _f_log_msg(self, e: I.Call) -> None:
        self.line("/* log_msg: not logged by the native pipeline */")

    def _f_truncate(self, e: I.Call) -> None:
        n = self.expr(e.args[0].value)
        self.line(f"{{ int64_t n_ = (int64_t)({n}); if (P->trunc < 0 || n_ < P->trunc) P->trunc = n_; }}")

    def _f_random(self, e: I.Call) -> None:
        res, lo, hi = (self.expr(a.value) for a in e.args)
        self.line(f"{{ uint64_t rv_; int k_ = p4_random(st, {lo}, {hi}, &rv_); if (k_ < 0) {ERR} "
                  f"if (k_) {res} = rv_; }}")

    def _algo(self, a: I.Argument) -> str:
        name = a.type.members[a.value.const]
        if name not in HASHES:
            raise refuse(f"the hash algorithm {name}", a.loc)
        return HASHES[name]

    def _f_hash(self, e: I.Call) -> None:
        res_a, algo, base_a, data_a, mx_a = e.args
        res = self.expr(res_a.value)
        w = scalar(res_a.value.type, e.loc).width
        fn = self._algo(algo)
        self.line("{")
        self.ind += 1
        n = self.pack(data_a.value, "hb_")
        base, mx = self.expr(base_a.value), self.expr(mx_a.value)
        self.line(f"uint64_t m_ = {mx}; if (!m_) m_ = 1;")
        self.line(f"{res} = ((uint64_t)({base}) + {fn}(hb_, {n}) % m_) & {mask(w)};")
        self.ind -= 1
        self.line("}")

    def _checksum(self, e: I.Call, verify: bool, payload: bool = False) -> None:
        cond_a, data_a, ck_a, algo = e.args
        fn = self._algo(algo)
        cond = self.expr(cond_a.value)
        f = ck_a.value
        if isinstance(f, I.Field) and isinstance(f.base.type, StructT) and f.base.type.kind == "header":
            cond = f"({cond}) && {self.expr(f.base)}.valid"
        ck = self.expr(f)
        w = scalar(f.type, e.loc).width
        self.line(f"if ({cond}) {{")
        self.ind += 1
        n = self.pack(data_a.value, "hb_")
        value = f"({fn}(hb_, {n}) & {mask(w)})"
        if payload:
            self.line(f"size_t tn_ = {n} + (size_t)P->pllen; uint8_t *tb_ = malloc(tn_ + 1);")
            self.line(f"if (!tb_) {{ PyErr_NoMemory(); {ERR} }}")
            self.line(f"memcpy(tb_, hb_, {n}); memcpy(tb_ + {n}, P->pl, (size_t)P->pllen);")
            self.line(f"uint64_t ck_ = {fn}(tb_, tn_) & {mask(w)}; free(tb_);")
            value = "ck_"
        if verify:
            self.line(f"if ({value} != {ck}) P->checksum_error = 1;")
        else:
            self.line(f"{ck} = {value};")
        self.ind -= 1
        self.line("}")

    def _f_update_checksum(self, e: I.Call) -> None:
        self._checksum(e, False)

    def _f_verify_checksum(self, e: I.Call) -> None:
        self._checksum(e, True)

    def _f_update_checksum_with_payload(self, e: I.Call) -> None:
        self._checksum(e, False, payload=True)

    def _f_verify_checksum_with_payload(self, e: I.Call) -> None:
        self._checksum(e, True, payload=True)

    # -- hash/checksum input ----------------------------------------------------------------
    def flatten(self, e: I.Expr, out: list[tuple[str, int]]) -> None:
        """(C value, width) of each field of hash data `e`, in order (`ExternGen._flatten`)."""
        t = e.type
        if isinstance(e, (I.ListExpr,)):
            for x in e.items:
                self.flatten(x, out)
        elif isinstance(e, I.StructExpr):
            for x in e.values:
                self.flatten(x, out)
        elif isinstance(t, BitsT):
            out.append((unsigned(self.expr(e), t), t.width))
        elif isinstance(t, BoolT):
            out.append((f"((uint64_t)({self.expr(e)}))", 1))
        elif isinstance(t, (EnumT, ErrorT)):
            st = scalar(t, e.loc)
            out.append((self.expr(e), st.width))
        elif isinstance(t, StructT) and t.kind in ("header", "struct"):
            base = self.expr(e)
            for fname, ftype in t.fields:
                self._flatten_path(f"{base}.f_{fname}", ftype, out, e.loc)
        elif isinstance(t, TupleT) and not t.items:
            pass
        else:
            raise refuse(f"hash data of type {t}", e.loc)

    def _flatten_path(self, c: str, t, out: list, loc) -> None:
        if isinstance(t, StructT):
            for fname, ftype in t.fields:
                self._flatten_path(f"{c}.f_{fname}", ftype, out, loc)
            return
        st = scalar(t, loc)
        out.append((unsigned(c, st) if isinstance(st, BitsT) else f"((uint64_t){c})",
                    st.width if isinstance(st, BitsT) else 1))

    def pack(self, e: I.Expr, buf: str) -> int:
        """Declare `buf` holding data `e` packed MSB-first, zero-padded to a byte (as
        `pack_fields`); returns its length in bytes."""
        items: list[tuple[str, int]] = []
        self.flatten(e, items)
        total = sum(w for _, w in items)
        n = (total + 7) // 8
        self.line(f"uint8_t {buf}[{max(n, 1)}]; size_t o_{buf} = 0; unsigned __int128 a_{buf} = 0; int b_{buf} = 0;")
        for c, w in items:
            self.line(f"p4_acc(&a_{buf}, &b_{buf}, {buf}, &o_{buf}, {c}, {w});")
        self.line(f"p4_acc_flush(&a_{buf}, &b_{buf}, {buf}, &o_{buf});")
        return n
