"""Typed IR expressions -> C (mixin of `p4emu.native.cgen.CGen`).

A value of bit<W> is a uint64_t holding the value masked to W bits, int<W> an int64_t
sign-extended from W bits, bool an int 0/1: the same numbers the Python emitter's ints
hold (p4emu/compiler/passes/emit_operators.py), so every operator masks or wraps exactly
where that one does. Widths above 64 bits and run-time infinite-precision ints are
refused.
"""

from __future__ import annotations

from p4emu.compiler.scope import FuncB
from p4emu.ir import expressions as I
from p4emu.lang.types import BitsT, BoolT, EnumT, ErrorT, InfIntT, StackT, StructT, Type
from p4emu.native.errors import refuse


def scalar(t: Type, loc: object = None) -> BitsT | BoolT:
    """The C-representable scalar `t` is (enums and errors as their codes), or refuse."""
    if isinstance(t, BitsT):
        if t.width > 64 or t.width < 1:
            raise refuse(f"{t} (wider than 64 bits)", loc)
        return t
    if isinstance(t, BoolT):
        return t
    if isinstance(t, EnumT):
        return t.underlying if t.underlying is not None else BitsT(32)
    if isinstance(t, ErrorT):
        return BitsT(32)
    raise refuse(f"a value of type {t}", loc)


def mask(w: int) -> str:
    return "UINT64_C(0xffffffffffffffff)" if w >= 64 else f"UINT64_C({(1 << w) - 1:#x})"


def lit(value: object, t: Type) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if not isinstance(value, int):
        raise refuse(f"a constant {value!r}")
    if isinstance(t, BitsT) and t.signed:
        return f"INT64_C({value})" if value >= -(2**63) + 1 else "INT64_MIN"
    if value < 0 or value >= 2**64:
        raise refuse(f"the constant {value} outside 64 bits")
    return f"UINT64_C({value:#x})"


def unsigned(c: str, t: Type) -> str:
    """`c` as its unsigned bits (how keys, slices, concatenation and hashes read it)."""
    if isinstance(t, BitsT) and t.signed:
        return f"((uint64_t)({c}) & {mask(t.width)})"
    return f"((uint64_t)({c}))"


def wrap_signed(c: str, w: int) -> str:
    return f"p4_sx((uint64_t)({c}), {w})"


def has_call(e: object) -> bool:
    """Whether expression `e` contains a call (whose effects must run even when the
    checker folded its value)."""
    if isinstance(e, I.Call):
        return True
    if isinstance(e, I.Expr):
        return any(has_call(getattr(e, f)) for f in e.__dataclass_fields__
                   if f not in ("type", "loc", "const", "binding"))
    if isinstance(e, tuple):
        return any(has_call(x) for x in e)
    return False


class ExprC:
    """`self` is the `CGen`."""

    def expr(self, e: I.Expr) -> str:
        if e.const is not None and not isinstance(e.type, StructT) and not has_call(e):
            if isinstance(e.type, InfIntT):
                return lit(e.const, BitsT(64))
            return lit(e.const, scalar(e.type, e.loc))
        m = getattr(self, "_x_" + type(e).__name__, None)
        if m is None:
            raise refuse(f"the expression {type(e).__name__}", e.loc)
        return m(e)

    def _x_VarRef(self, e: I.VarRef) -> str:
        c = self.names.get(id(e.binding))
        if c is None:
            raise refuse(f"the name {e.name}", e.loc)
        return c

    def _x_Field(self, e: I.Field) -> str:
        bt = e.base.type
        if not isinstance(bt, StructT) or bt.kind == "header_union":
            raise refuse(f"a field of {bt}", e.loc)
        return f"{self.expr(e.base)}.f_{e.name}"

    def _x_StackIndex(self, e: I.StackIndex) -> str:
        i = e.index.const
        if not isinstance(i, int) or isinstance(i, bool):
            raise refuse("a header stack index known only at run time", e.loc)
        if not 0 <= i < e.base.type.size:
            raise refuse("a header stack index out of range", e.loc)
        return f"{self.expr(e.base)}.items[{i}]"

    def _x_StackProperty(self, e: I.StackProperty) -> str:
        s = self.expr(e.base)
        n = e.base.type.size
        if e.name == "nextIndex":
            return f"{s}.nxt"
        if e.name == "lastIndex":
            return f"(({s}.nxt - 1) & UINT64_C(0xffffffff))"
        if e.name == "size":
            return f"UINT64_C({n})"
        if self.block_kind != "parser":
            raise refuse(f"{e.name} of a header stack outside a parser", e.loc)
        # taken once, into a pointer: the C text may be used more than once
        elem = self.fresh("el")
        if e.name == "next":
            self.line(f"if ({s}.nxt >= {n}) {{ *err = 3; return 0; }}")
            self.line(f"{self.ctype_of(e.type)} *{elem} = &{s}.items[{s}.nxt++];")
        else:
            self.line(f"if ({s}.nxt == 0) {{ *err = 3; return 0; }}")
            self.line(f"{self.ctype_of(e.type)} *{elem} = &{s}.items[{s}.nxt - 1];")
        return f"(*{elem})"

    def _x_HeaderQuery(self, e: I.HeaderQuery) -> str:
        bt = e.base.type
        if e.name != "isValid" or not isinstance(bt, StructT) or bt.kind != "header":
            raise refuse(f"{e.name}() on {bt}", e.loc)
        return f"((int){self.expr(e.base)}.valid)"

    def _x_ApplyResultMember(self, e: I.ApplyResultMember) -> str:
        r = self.hoist_apply(e.base)
        return {"hit": f"{r}.hit", "miss": f"(!{r}.hit)", "action_run": f"{r}.action_id"}[e.name]

    def _x_Slice(self, e: I.Slice) -> str:
        src = unsigned(self.expr(e.base), e.base.type)
        return f"(({src} >> {e.lo}) & {mask(e.type.width)})"

    def _x_Unary(self, e: I.Unary) -> str:
        v = self.expr(e.operand)
        t = e.type
        if e.op == "!":
            return f"(!{v})"
        st = scalar(t, e.loc)
        if e.op == "~":
            return f"(~{v})" if st.signed else f"({v} ^ {mask(st.width)})"
        if st.signed:
            return wrap_signed(f"-(uint64_t){v}", st.width)
        return f"((UINT64_C(0) - {v}) & {mask(st.width)})"

    def _x_Binary(self, e: I.Binary) -> str:
        op, t = e.op, e.type
        if op in ("&&", "||"):
            a = self.expr(e.left)
            with self.lazy():
                b = self.expr(e.right)
            return f"({a} {op} {b})"
        a, b = self.expr(e.left), self.expr(e.right)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return f"({a} {op} {b})"
        if isinstance(t, BoolT):
            return f"({a} {op} {b})"
        st = scalar(t, e.loc)
        w, m = st.width, mask(st.width)
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if op in ("+", "-", "*"):
            if st.signed:
                return wrap_signed(f"(uint64_t)({a}) {op} (uint64_t)({b})", w)
            return f"(({a} {op} {b}) & {m})"
        if op in ("<<", ">>"):
            return self._shift(e, a, b, st)
        if op in ("/", "%"):
            if st.signed or not isinstance(e.right.const, int) or e.right.const <= 0:
                raise refuse(f"'{op}' by a run-time or signed value", e.loc)
            return f"({a} {op} {b})"
        if op in ("|+|", "|-|"):
            if st.signed:
                return f"p4_sat_s((__int128)({a}) {op[1]} (__int128)({b}), {w})"
            return f"p4_addsat({a}, {b}, {w})" if op == "|+|" else f"p4_subsat({a}, {b})"
        raise refuse(f"the operator {op} on {t}", e.loc)

    def _shift(self, e: I.Binary, a: str, b: str, st: BitsT) -> str:
        w, m = st.width, mask(st.width)
        bc = e.right.const
        if e.op == ">>":
            if isinstance(bc, int) and bc >= w:
                return f"(({a}) < 0 ? INT64_C(-1) : INT64_C(0))" if st.signed else "UINT64_C(0)"
            return f"p4_sar({a}, {b})" if st.signed else f"p4_shr({a}, {b})"
        if isinstance(bc, int):
            if bc >= 64:
                return "INT64_C(0)" if st.signed else "UINT64_C(0)"
            if st.signed:
                return wrap_signed(f"(uint64_t)({a}) << {bc}", w)
            return f"(({a} << {bc}) & {m})"
        if st.signed:
            return f"(({b}) < {w} ? {wrap_signed(f'(uint64_t)({a}) << ({b})', w)} : INT64_C(0))"
        return f"(({b}) < {w} ? (({a} << ({b})) & {m}) : UINT64_C(0))"

    def _x_Concat(self, e: I.Concat) -> str:
        st = scalar(e.type, e.loc)
        a = unsigned(self.expr(e.left), e.left.type)
        b = unsigned(self.expr(e.right), e.right.type)
        c = f"(({a} << {e.right.type.width}) | {b})"
        return wrap_signed(c, st.width) if st.signed else c

    def _x_Ternary(self, e: I.Ternary) -> str:
        c = self.expr(e.cond)
        with self.lazy():
            a, b = self.expr(e.then), self.expr(e.other)
        if isinstance(e.type, StructT):
            raise refuse("?: of headers or structs", e.loc)
        return f"({c} ? {a} : {b})"

    def _x_Cast(self, e: I.Cast) -> str:
        return self.cast(self.expr(e.operand), e.operand.type, e.type, e.loc)

    def _x_Convert(self, e: I.Convert) -> str:
        if isinstance(e.operand.type, InfIntT) and e.operand.const is None:
            raise refuse("a run-time value of type int", e.loc)
        return self.cast(self.expr(e.operand), e.operand.type, e.type, e.loc, implicit=True)

    def cast(self, c: str, s: Type, t: Type, loc: object, implicit: bool = False) -> str:
        """C of the cast of `c` (type `s`) to `t`, as `cast_py` computes it."""
        if isinstance(t, StructT) or isinstance(s, StructT):
            raise refuse(f"a cast from {s} to {t}", loc)
        if isinstance(s, InfIntT):
            raise refuse("a run-time value of type int", loc)
        if isinstance(t, InfIntT):
            raise refuse(f"a cast of {s} to int", loc)
        ss, tt = scalar(s, loc), scalar(t, loc)
        if isinstance(tt, BoolT):
            return c if isinstance(ss, BoolT) else f"({c} != 0)"
        if isinstance(ss, BoolT):
            return f"((uint64_t)({c}))" if not tt.signed else f"((int64_t)({c}))"
        if ss == tt or (not ss.signed and not tt.signed and tt.width >= ss.width):
            return c
        if tt.signed:
            return wrap_signed(c, tt.width)
        return f"((uint64_t)({c}) & {mask(tt.width)})"

    def _x_Call(self, e: I.Call) -> str:
        c = e.callee
        if (isinstance(c, I.MethodRef) and c.name == "lookahead"
                and getattr(c.base.type, "name", "") == "packet_in" and self.block_kind == "parser"):
            t = e.type
            st = scalar(t, e.loc)
            w = st.width if isinstance(st, BitsT) else 1
            nb = (w + 7) // 8
            if not self.in_select_key:  # checked, as Packet.peek_bits
                self.line(f"if (P->pos + {nb} > P->dlen) {{ *err = 1; return 0; }}")
            v = f"p4_peek(P->data, P->pos, P->dlen, {w})"
            if isinstance(st, BoolT):
                return f"({v} == 1)"
            return wrap_signed(v, w) if st.signed else v
        if isinstance(c, I.CallableRef) and isinstance(c.binding, FuncB):
            return self.call_function(c.binding, e, as_value=True)
        name = getattr(c, "name", type(c).__name__)
        raise refuse(f"a call of {name} in an expression", e.loc)

    def _x_CompoundEq(self, e: I.CompoundEq) -> str:
        t = e.left.type
        ok = (I.Field, I.VarRef, I.StackIndex)
        if not isinstance(e.left, ok) or not isinstance(e.right, ok) or isinstance(t, StructT) \
                and t.kind == "header_union":
            raise refuse(f"== of {type(e.left).__name__} and {type(e.right).__name__}", e.loc)
        c = f"{self.eq_fn(t)}(&{self.expr(e.left)}, &{self.expr(e.right)})"
        return c if e.op == "==" else f"(!{c})"

    def eq_fn(self, t) -> str:
        """The C function comparing two values of header/struct/stack type `t` (as the
        generated classes' `equals`: invalid headers are equal whatever their fields)."""
        key = id(t) if not isinstance(t, StackT) else (id(t.elem), t.size)
        if key in self.eq_fns:
            return self.eq_fns[key]
        name = f"EQ_{len(self.eq_fns)}"
        self.eq_fns[key] = name
        ct = self.ctype_of(t)
        sig = f"static int {name}(const {ct} *a, const {ct} *b)"
        self.protos.append(sig + ";")
        if isinstance(t, StackT):
            body = [f"    for (int i = 0; i < {t.size}; i++) if (!{self.eq_fn(t.elem)}"
                    "(&a->items[i], &b->items[i])) return 0;", "    return 1;"]
        else:
            body = []
            if t.kind == "header":
                body += ["    if (a->valid != b->valid) return 0;", "    if (!a->valid) return 1;"]
            for fname, ft in t.fields:
                if isinstance(ft, (StructT, StackT)):
                    body.append(f"    if (!{self.eq_fn(ft)}(&a->f_{fname}, &b->f_{fname})) return 0;")
                else:
                    body.append(f"    if (a->f_{fname} != b->f_{fname}) return 0;")
            body.append("    return 1;")
        self.functions.append([sig + " {", *body, "}"])
        return name

    def _x_DefaultValue(self, e: I.DefaultValue) -> str:
        st = scalar(e.type, e.loc)
        return "0" if isinstance(st, BoolT) else lit(0, st)
