"""Type checking and Python generation of P4 expressions (mixin of `ProgramGen`).

Run-time representation: bit<N> = unsigned int, int<N> = signed int, bool = bool,
error / enum = int code (serializable enum: its value), varbit = (width, value) tuple,
headers/structs = generated __slots__ classes, header stacks = `Stack`.
"""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text
from p4emu.compiler.scope import (
    ActionB,
    BlockDeclB,
    ConstB,
    ExternFuncB,
    FuncB,
    InstB,
    Scope,
    TypeB,
    VarB,
)
from p4emu.compiler.typegen import TypeGen
from p4emu.compiler.values import (
    AggConst,
    V,
    agg_const,
    lit,
    runtime_int,
    runtime_int_op,
    to_unsigned_py,
    width_of,
    wrap,
    zero_value,
)
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import (
    BOOL,
    DONTCARE,
    ERROR,
    INFINT,
    STRING,
    VOID,
    BitsT,
    BoolT,
    EnumT,
    ErrorT,
    InfIntT,
    ObjectT,
    StackT,
    StructT,
    TupleT,
    Type,
    TypeVarT,
    same_type,
)

__all__ = ["AggConst", "ExprGen", "V", "lit", "to_unsigned_py", "width_of", "wrap"]


class ExprGen(TypeGen):
    """Expression half of the generator; `self` is the `ProgramGen`."""

    errors: dict[str, int]

    # -- expressions -------------------------------------------------------------------
    def expr(self, e: A.Expr, scope: Scope, fn, want: Type | None = None) -> V:
        m = getattr(self, "_x_" + type(e).__name__, None)
        if m is None:
            raise unsupported(e.loc, f"expression {type(e).__name__}")
        v = m(e, scope, fn, want)
        e.ty = v.ty
        return v

    def _x_IntLit(self, e: A.IntLit, scope, fn, want) -> V:
        if e.width is None:
            if isinstance(want, BitsT):
                c = wrap(e.value, want)
                return V(lit(c), want, c)
            return V(lit(e.value), INFINT, e.value)
        t = BitsT(e.width, e.signed)
        c = wrap(e.value, t)
        return V(lit(c), t, c)

    def _x_BoolLit(self, e, scope, fn, want) -> V:
        return V(lit(e.value), BOOL, e.value)

    def _x_StrLit(self, e, scope, fn, want) -> V:
        return V(repr(e.value), STRING, e.value)

    def _x_DontCare(self, e, scope, fn, want) -> V:
        return V("None", DONTCARE)

    def _x_DefaultKey(self, e, scope, fn, want) -> V:
        return V("None", DONTCARE)

    def _x_Path(self, e: A.Path, scope: Scope, fn, want) -> V:
        b = (self.global_scope if e.is_global else scope).lookup(e.name)
        if b is None:
            raise P4CompileError(e.loc, f"{e.name}: not declared")
        e.ref = b
        if isinstance(b, VarB):
            return V(b.py, b.ty, None, b)
        if isinstance(b, ConstB):
            return V(lit(b.value) if not isinstance(b.value, V) else b.value.py, b.ty, b.value, b)
        if isinstance(b, InstB):
            return V(b.py, b.ty, None, b)
        if isinstance(b, TypeB):
            return V("None", b.ty, None, b)
        if isinstance(b, (ActionB, FuncB, ExternFuncB, BlockDeclB)):
            return V("None", VOID, None, b)
        raise P4CompileError(e.loc, f"{e.name}: cannot be used here")

    def _x_TypeExpr(self, e: A.TypeExpr, scope, fn, want) -> V:
        tr = e.type
        if isinstance(tr, A.TName) and not tr.args:
            b = (self.global_scope if tr.is_global else scope).lookup(tr.name)
            if b is not None and not isinstance(b, (TypeB, BlockDeclB)):
                # a variable or parameter shadowing a type name
                return self._x_Path(A.Path(tr.loc, tr.name, tr.is_global), scope, fn, want)
        t = self.resolve_type(e.type, scope)
        return V("None", t, None, TypeB(t))

    def _x_Member(self, e: A.Member, scope: Scope, fn, want) -> V:
        base = self.expr(e.expr, scope, fn)
        t = base.ty
        if isinstance(base.ref, TypeB):
            if isinstance(t, EnumT):
                if e.name not in t.members:
                    raise P4CompileError(e.loc, f"{t.name} has no member {e.name}")
                val = t.values[e.name]
                return V(lit(val), t, val)
            if isinstance(t, ErrorT):
                if e.name not in self.errors:
                    raise P4CompileError(e.loc, f"error.{e.name}: not declared")
                val = self.errors[e.name]
                return V(lit(val), ERROR, val)
            raise P4CompileError(e.loc, f"{t}.{e.name}: invalid member")
        if isinstance(t, StructT):
            ft = t.field_type(e.name)
            if ft is None:
                if e.name not in ("isValid", "setValid", "setInvalid", "minSizeInBits",
                                  "minSizeInBytes"):
                    raise P4CompileError(e.loc, f"{t.name} has no field {e.name}")
                return V("None", VOID, None, ("method", base, e.name))
            if isinstance(base.const, AggConst) and base.const.valid is not False:
                c = base.const.item(e.name)
                return V(lit(c), ft, c)
            return V(f"{base.py}.f_{e.name}", ft)
        if isinstance(t, StackT):
            if e.name == "next":
                if not self.in_parser:
                    raise P4CompileError(e.loc, "next: only allowed in parsers")
                return V(f"{base.py}.next_elem()", t.elem)
            if e.name == "last":
                return V(f"{base.py}.last_elem()", t.elem)
            if e.name == "lastIndex":
                return V(f"(({base.py}.nxt - 1) & 0xffffffff)", BitsT(32))
            if e.name in ("size",):
                return V(lit(t.size), BitsT(32), t.size)
            if e.name == "nextIndex":
                return V(f"{base.py}.nxt", BitsT(32))
            return V("None", VOID, None, ("method", base, e.name))
        if isinstance(t, ObjectT):
            if t.kind == "apply_result":
                if e.name == "hit":
                    return V(f"{base.py}.hit", BOOL)
                if e.name == "miss":
                    return V(f"(not {base.py}.hit)", BOOL)
                if e.name == "action_run":
                    return V(f"{base.py}.action_id", ObjectT("action_run", "action_run", base.ref))
                raise P4CompileError(e.loc, f"table apply result has no member {e.name}")
            return V("None", VOID, None, ("method", base, e.name))
        raise P4CompileError(e.loc, f"{t} has no member {e.name}")

    def _x_Index(self, e: A.Index, scope, fn, want) -> V:
        base = self.expr(e.expr, scope, fn)
        idx = self.expr(e.index, scope, fn)
        if isinstance(base.ty, StackT):
            if idx.const is not None:
                if not 0 <= idx.const < base.ty.size:
                    raise P4CompileError(e.loc, f"index {idx.const} out of bounds of {base.ty}")
                return V(f"{base.py}.items[{idx.const}]", base.ty.elem)
            return V(f"{base.py}.at({idx.py})", base.ty.elem)
        if isinstance(base.ty, TupleT) and isinstance(base.const, AggConst) and isinstance(idx.const, int):
            c = base.const.items[idx.const]
            return V(lit(c), base.ty.items[idx.const], c)
        if isinstance(base.ty, TupleT) and idx.const is not None:
            return V(f"{base.py}[{idx.const}]", base.ty.items[idx.const])
        raise P4CompileError(e.loc, f"cannot index a value of type {base.ty}")

    def _x_Slice(self, e: A.Slice, scope, fn, want) -> V:
        base = self.expr(e.expr, scope, fn)
        hi = self.const_int(e.hi, scope)
        lo = self.const_int(e.lo, scope)
        if isinstance(base.ty, InfIntT) and base.const is not None:
            w = hi - lo + 1
            c = (base.const >> lo) & ((1 << w) - 1)
            return V(lit(c), BitsT(w), c)
        if not isinstance(base.ty, BitsT):
            raise P4CompileError(e.loc, f"cannot slice a value of type {base.ty}")
        if not (0 <= lo <= hi < base.ty.width):
            raise P4CompileError(e.loc, f"slice [{hi}:{lo}] out of range of {base.ty}")
        w = hi - lo + 1
        t = BitsT(w)
        src = to_unsigned_py(base.py, base.ty)
        if base.const is not None:
            c = (base.const & base.ty.mask) >> lo & t.mask
            return V(lit(c), t, c)
        if lo == 0:
            return V(f"({src} & {t.mask})", t)
        if hi == base.ty.width - 1 and not base.ty.signed:
            return V(f"({src} >> {lo})", t)
        return V(f"(({src} >> {lo}) & {t.mask})", t)

    def _x_Cast(self, e: A.Cast, scope, fn, want) -> V:
        t = self.resolve_type(e.type, scope)
        v = self.expr(e.expr, scope, fn)
        return self.cast(v, t, e.loc)

    def cast(self, v: V, t: Type, loc) -> V:
        s = v.ty
        if same_type(s, t):
            return V(v.py, t, v.const)
        if isinstance(t, BitsT):
            if isinstance(s, (BitsT, InfIntT)):
                if v.const is not None:
                    c = wrap(v.const, t)
                    return V(lit(c), t, c)
                if isinstance(s, BitsT) and not s.signed and not t.signed and t.width >= s.width:
                    return V(v.py, t)
                if t.signed:
                    h = 1 << (t.width - 1)
                    return V(f"((({v.py} + {h}) & {t.mask}) - {h})" if getattr(s, "signed", 1) else
                             f"((({v.py} & {t.mask}) ^ {h}) - {h})", t)
                return V(f"({v.py} & {t.mask})", t)
            if isinstance(s, BoolT):
                if v.const is not None:
                    return V(lit(int(v.const)), t, int(v.const))
                return V(f"int({v.py})", t)
            if isinstance(s, EnumT) and s.underlying is not None:
                return self.cast(V(v.py, s.underlying, v.const), t, loc)
        if isinstance(t, BoolT) and isinstance(s, (BitsT, InfIntT)):
            if isinstance(s, BitsT) and (s.width != 1 or s.signed):
                raise P4CompileError(loc, f"cannot cast {s} to bool (only bit<1>)")
            if isinstance(s, InfIntT) and v.const not in (0, 1):
                raise P4CompileError(loc, f"cannot cast {v.const} to bool")
            if v.const is not None:
                return V(lit(bool(v.const)), BOOL, bool(v.const))
            return V(f"({v.py} != 0)", BOOL)
        if isinstance(t, EnumT) and t.underlying is not None and isinstance(s, (BitsT, InfIntT)):
            inner = self.cast(v, t.underlying, loc)
            return V(inner.py, t, inner.const)
        if isinstance(t, StructT) and isinstance(s, TupleT):
            return V(v.py, t, v.const, v.ref)
        if isinstance(t, InfIntT) and (v.const is not None or isinstance(s, BitsT)):
            return V(lit(v.const), t, v.const) if v.const is not None else runtime_int(v)
        raise P4CompileError(loc, f"cannot cast {s} to {t}")

    def _x_Unary(self, e: A.Unary, scope, fn, want) -> V:
        v = self.expr(e.expr, scope, fn, want if e.op in ("-", "~", "+") else None)
        t = v.ty
        if e.op == "!":
            if not isinstance(t, BoolT):
                raise P4CompileError(e.loc, f"!: expected bool, got {t}")
            if v.const is not None:
                return V(lit(not v.const), BOOL, not v.const)
            return V(f"(not {v.py})", BOOL)
        if isinstance(t, InfIntT):
            if v.const is None:
                raise P4CompileError(e.loc, f"{e.op}: operand width unknown")
            c = {"-": -v.const, "+": v.const, "~": ~v.const}[e.op]
            return V(lit(c), INFINT, c)
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{e.op}: expected an integer, got {t}")
        if v.const is not None:
            c = wrap({"-": -v.const, "+": v.const, "~": ~v.const}[e.op], t)
            return V(lit(c), t, c)
        if e.op == "+":
            return v
        if e.op == "~":
            return V(f"(~{v.py})" if t.signed else f"({v.py} ^ {t.mask})", t)
        if t.signed:
            return self._signed_wrap(f"-{v.py}", t)
        return V(f"(-{v.py} & {t.mask})", t)

    def _signed_wrap(self, py: str, t: BitsT) -> V:
        h = 1 << (t.width - 1)
        return V(f"((({py}) + {h} & {t.mask}) - {h})", t)

    def _x_Binary(self, e: A.Binary, scope, fn, want) -> V:
        op = e.op
        if op in ("&&", "||"):
            a = self.expr(e.left, scope, fn)
            b, lines = self.capture(fn, lambda: self.expr(e.right, scope, fn), extra_indent=1)
            for x, side in ((a, e.left), (b, e.right)):
                if not isinstance(x.ty, BoolT):
                    raise P4CompileError(side.loc, f"{op}: expected bool, got {x.ty}")
            if lines:  # the right operand has side effects: they run only when needed
                return self.lazy_join(fn, a, b, lines, op)
            if a.const is not None and b.const is not None:
                c = (a.const and b.const) if op == "&&" else (a.const or b.const)
                return V(lit(c), BOOL, c)
            return V(f"({a.py} {'and' if op == '&&' else 'or'} {b.py})", BOOL)
        if op in ("<<", ">>"):
            return self._shift(e, scope, fn, want)
        # operands are typed on their own (int literals fold at infinite precision, as
        # in p4c); the context type applies to the result only
        left: list[V] = []

        def gen_left() -> V:
            left.append(self.expr(e.left, scope, fn))
            return left[0]

        def gen_right() -> V:
            # `h == {#}`, `s == {1, 2}`: the other operand gives the brace expression its type
            lt = left[0].ty
            return self.expr(e.right, scope, fn, lt if isinstance(lt, (StructT, StackT, TupleT)) else None)

        a, b = self.in_order(fn, [gen_left, gen_right])
        if isinstance(a.ty, InfIntT) and isinstance(b.ty, BitsT) and op != "++":
            a = self.coerce(a, b.ty, e.loc)
        if op == "++":
            return self._concat(e, a, b)
        if op in ("==", "!="):
            if isinstance(a.ty, (StructT, StackT, TupleT)) or isinstance(b.ty, (StructT, StackT, TupleT)):
                return self._compound_eq(e, a, b)
            if not (isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT)):
                a, b = self.unify_binary(a, b, e.loc, op)
            if a.const is not None and b.const is not None:
                c = (a.const == b.const) == (op == "==")
                return V(lit(c), BOOL, c)
            return V(f"({a.py} {op} {b.py})", BOOL)
        if op in ("<", ">", "<=", ">="):
            if not (isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT)):
                a, b = self.unify_binary(a, b, e.loc, op)
            if not isinstance(a.ty, (BitsT, InfIntT)):
                raise P4CompileError(e.loc, f"{op}: cannot compare values of type {a.ty}")
            if a.const is not None and b.const is not None:
                c = {"<": a.const < b.const, ">": a.const > b.const,
                     "<=": a.const <= b.const, ">=": a.const >= b.const}[op]
                return V(lit(c), BOOL, c)
            return V(f"({a.py} {op} {b.py})", BOOL)
        if isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT):
            if a.const is None or b.const is None:
                return runtime_int_op(e, op, a, b)
            return self._fold_infint(e, op, a.const, b.const)
        a, b = self.unify_binary(a, b, e.loc, op)
        t = a.ty
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{op}: expected integers, got {t}")
        if op in ("/", "%") and t.signed:
            raise P4CompileError(e.loc, f"{op}: not supported on signed values ({t})")
        if op in ("/", "%") and b.const == 0:
            raise P4CompileError(e.loc, "division by zero")
        if a.const is not None and b.const is not None:
            c = self._fold_bits(e, op, a.const, b.const, t)
            return V(lit(c), t, c)
        if op in ("&", "|", "^"):
            return V(f"({a.py} {op} {b.py})", t)
        if op in ("+", "-", "*"):
            if t.signed:
                return self._signed_wrap(f"{a.py} {op} {b.py}", t)
            return V(f"(({a.py} {op} {b.py}) & {t.mask})", t)
        if op == "/":
            return V(f"({a.py} // {b.py})", t)
        if op == "%":
            return V(f"({a.py} % {b.py})", t)
        if op == "|+|":
            if t.signed:
                h = 1 << (t.width - 1)
                return V(f"max(-{h}, min({a.py} + {b.py}, {h - 1}))", t)
            return V(f"min({a.py} + {b.py}, {t.mask})", t)
        if op == "|-|":
            if t.signed:
                h = 1 << (t.width - 1)
                return V(f"max(-{h}, min({a.py} - {b.py}, {h - 1}))", t)
            return V(f"max({a.py} - {b.py}, 0)", t)
        raise unsupported(e.loc, f"operator {op}")

    def _fold_infint(self, e, op, x, y) -> V:
        if op in ("/", "%") and y == 0:
            raise P4CompileError(e.loc, "division by zero")
        c = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
             "/": lambda: x // y, "%": lambda: x % y, "&": lambda: x & y,
             "|": lambda: x | y, "^": lambda: x ^ y}.get(op)
        if c is None:
            raise P4CompileError(e.loc, f"{op}: operand width unknown")
        v = c()
        return V(lit(v), INFINT, v)

    def _fold_bits(self, e, op, x, y, t: BitsT) -> int:
        if op in ("/", "%") and y == 0:
            raise P4CompileError(e.loc, "division by zero")
        if op == "|+|":
            lo, hi = ((-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed else (0, t.mask))
            return max(lo, min(hi, x + y))
        if op == "|-|":
            lo, hi = ((-(1 << (t.width - 1)), (1 << (t.width - 1)) - 1) if t.signed else (0, t.mask))
            return max(lo, min(hi, x - y))
        v = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y,
             "/": x // y if y else 0, "%": x % y if y else 0}[op]
        return wrap(v, t)

    def _shift(self, e: A.Binary, scope, fn, want) -> V:
        a, b = self.in_order(fn, [lambda: self.expr(e.left, scope, fn),
                                  lambda: self.expr(e.right, scope, fn)])
        if isinstance(a.ty, InfIntT) and b.const is None and isinstance(want, BitsT):
            a = self.coerce(a, want, e.left.loc)  # `1 << n` takes the width of its context
        if isinstance(b.ty, BitsT) and b.ty.signed:
            raise P4CompileError(e.right.loc, "shift amount must be unsigned")
        if not isinstance(b.ty, (BitsT, InfIntT)) or getattr(b.ty, "newtype", None):  # p4c: bit<S>
            raise P4CompileError(e.right.loc, f"{expr_text(e.right)}: The right operand of shift "
                                              f"must be either an expression of type bit<S> or a "
                                              f"compile-time known value that is a non-negative "
                                              f"integer, but is {getattr(b.ty, 'newtype', None) or b.ty}")
        if isinstance(b.const, int) and b.const < 0:
            raise P4CompileError(e.right.loc, f"shift by a negative amount {b.const}")
        if isinstance(a.ty, InfIntT):
            if a.const is None or b.const is None:
                raise P4CompileError(e.loc, f"{e.op}: width of left operand unknown")
            c = a.const << b.const if e.op == "<<" else a.const >> b.const
            return V(lit(c), INFINT, c)
        t = a.ty
        if not isinstance(t, BitsT):
            raise P4CompileError(e.loc, f"{e.op}: expected an integer, got {t}")
        if a.const is not None and b.const is not None:
            c = wrap(a.const << b.const, t) if e.op == "<<" else a.const >> b.const
            return V(lit(c), t, c)
        if e.op == ">>":
            if b.const is not None and b.const >= t.width:
                return V("-1" if t.signed else "0", t) if not t.signed else V(f"(-1 if {a.py} < 0 else 0)", t)
            return V(f"({a.py} >> {b.py})", t)
        if b.const is not None:
            if b.const >= t.width:
                return V("0", t, 0)
            if t.signed:
                return self._signed_wrap(f"{a.py} << {b.const}", t)
            return V(f"(({a.py} << {b.const}) & {t.mask})", t)
        if t.signed:
            h = 1 << (t.width - 1)
            return V(f"(((({a.py} << {b.py}) + {h}) & {t.mask}) - {h} if {b.py} < {t.width} else 0)", t)
        return V(f"((({a.py} << {b.py}) & {t.mask}) if {b.py} < {t.width} else 0)", t)

    def _concat(self, e, a: V, b: V) -> V:
        for x, side in ((a, e.left), (b, e.right)):
            if not isinstance(x.ty, BitsT):
                raise P4CompileError(side.loc, f"++: operands must be bit<N> or int<N>, got {x.ty}")
        t = BitsT(a.ty.width + b.ty.width, a.ty.signed)
        bw = b.ty.width
        au = to_unsigned_py(a.py, a.ty)
        bu = to_unsigned_py(b.py, b.ty)
        if a.const is not None and b.const is not None:
            c = wrap(((a.const & a.ty.mask) << bw) | (b.const & b.ty.mask), t)
            return V(lit(c), t, c)
        py = f"(({au} << {bw}) | {bu})"
        if t.signed:
            h = 1 << (t.width - 1)
            py = f"(({py} ^ {h}) - {h})"
        return V(py, t)

    def _compound_eq(self, e, a: V, b: V) -> V:
        if (isinstance(a.ty, StructT) and isinstance(b.ty, StructT) and a.ty is b.ty) or (
                isinstance(a.ty, StackT) and isinstance(b.ty, StackT) and same_type(a.ty, b.ty)):
            py = f"{a.py}.equals({b.py})"
            return V(py if e.op == "==" else f"(not {py})", BOOL)
        if isinstance(a.ty, TupleT) and isinstance(b.ty, TupleT) and len(a.ty.items) == len(b.ty.items):
            return V(f"({a.py} {e.op} {b.py})", BOOL)
        raise P4CompileError(e.loc, f"{e.op}: cannot compare {a.ty} and {b.ty}")

    def _x_Ternary(self, e: A.Ternary, scope, fn, want) -> V:
        c = self.expr(e.cond, scope, fn)
        if not isinstance(c.ty, BoolT):
            raise P4CompileError(e.cond.loc, f"?: condition must be bool, got {c.ty}")
        a, la = self.capture(fn, lambda: self.expr(e.then, scope, fn, want), extra_indent=1)
        b, lb = self.capture(fn, lambda: self.expr(e.other, scope, fn, a.ty if isinstance(a.ty, BitsT) else want),
                             extra_indent=1)
        if isinstance(a.ty, InfIntT) and not isinstance(b.ty, InfIntT):
            a = self.coerce(a, b.ty, e.loc)
        elif not (isinstance(a.ty, InfIntT) and isinstance(b.ty, InfIntT)):
            a, b = self.unify_binary(a, b, e.loc, "?:")
        if la or lb:  # an arm has side effects: only the chosen arm may run them
            if isinstance(a.ty, InfIntT):
                raise P4CompileError(e.loc, "?: width of the result cannot be inferred")
            return self.branch_join(fn, c, (a, la), (b, lb))
        if c.const is not None:
            return a if c.const else b
        if isinstance(a.ty, InfIntT):
            raise P4CompileError(e.loc, "?: width of the result cannot be inferred")
        return V(f"({a.py} if {c.py} else {b.py})", a.ty)

    def _x_ListExpr(self, e: A.ListExpr, scope, fn, want) -> V:
        wants = want.items if isinstance(want, TupleT) and len(want.items) == len(e.items) else None
        if isinstance(want, StructT) and (len(want.fields) == len(e.items) or (
                e.rest_default and len(e.items) <= len(want.fields))):
            wants = [t for _, t in want.fields][: len(e.items)]
        elif e.rest_default:
            raise P4CompileError(e.loc, "`...` needs a struct or header type from the context")
        vals = self.in_order(fn, [
            (lambda i=i, x=x: self.expr(x, scope, fn, wants[i] if wants else None))
            for i, x in enumerate(e.items)])
        if wants:
            vals = [self.coerce(v, t, x.loc) if not isinstance(t, (StructT, StackT)) else v
                    for v, t, x in zip(vals, wants, e.items, strict=True)]
        if e.rest_default:
            vals += [self.default_value(t) for _, t in want.fields[len(vals):]]
            wants = [t for _, t in want.fields]
        if isinstance(want, StructT) and want.kind in ("struct", "header") and wants:
            py = f"{want.py}.build({', '.join(v.py for v in vals)})"
            return V(py, want, agg_const(py, vals, want), ("list", vals))
        t = TupleT([v.ty for v in vals])
        py = "(" + "".join(v.py + ", " for v in vals) + ")"
        return V(py, t, agg_const(py, vals, None), ("list", vals))

    def _x_StructExpr(self, e: A.StructExpr, scope, fn, want) -> V:
        target = want if isinstance(want, StructT) else None
        if e.type is not None:
            target = self.resolve_type(e.type, scope)
        if target is None:
            raise unsupported(e.loc, "struct expression without a known struct type")
        names = [n for n, _ in target.fields]
        given = dict(e.fields)
        if set(given) - set(names) or (set(given) != set(names) and not e.rest_default):
            raise P4CompileError(e.loc, f"struct expression fields do not match {target.name}")
        ftypes = dict(target.fields)
        # fields are evaluated in the order written (it matters for side effects)
        written = dict(zip(given, self.in_order(fn, [
            (lambda x=x, n=n: self.expr(x, scope, fn, ftypes[n])) for n, x in given.items()]), strict=True))
        vals = []
        for n, ft in target.fields:
            if n not in given:
                vals.append(self.default_value(ft))
                continue
            v = written[n]
            vals.append(self.coerce(v, ft, given[n].loc) if ft.is_scalar() else v)
        py = f"{target.py}.build({', '.join(v.py for v in vals)})"
        return V(py, target, agg_const(py, vals, target), ("struct", vals))

    def default_value(self, t: Type) -> V:
        """P4's default value: 0, false, invalid headers (a fresh object)."""
        if isinstance(t, BitsT):
            return V("0", t, 0)
        if isinstance(t, BoolT):
            return V("False", t, False)
        return V(zero_value(t), t)

    def _x_InvalidHeader(self, e, scope, fn, want) -> V:
        if not isinstance(want, StructT) or want.kind not in ("header", "header_union"):
            raise P4CompileError(e.loc, "{#} needs a header or header union type from the context")
        py = f"{want.py}()"
        if want.kind == "header":  # an invalid header constant (`const h_t H = {#};`)
            vals = [self.default_value(ft) for _, ft in want.fields]
            return V(py, want, agg_const(py, vals, want, valid=False))
        return V(py, want)

    def _x_DefaultValue(self, e, scope, fn, want) -> V:
        if want is None or isinstance(want, (InfIntT, TypeVarT)):
            raise P4CompileError(e.loc, "`...` needs a type from the context")
        return self.default_value(want)

    def _x_Call(self, e: A.Call, scope, fn, want) -> V:
        return self.call(e, scope, fn, want, as_statement=False)

    def _x_Mask(self, e, scope, fn, want) -> V:
        raise P4CompileError(e.loc, "&&& is only allowed in select cases and table entries")

    def _x_Range(self, e, scope, fn, want) -> V:
        raise P4CompileError(e.loc, ".. is only allowed in select cases and table entries")
