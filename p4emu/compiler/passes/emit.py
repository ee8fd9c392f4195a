"""The emitter (mixin of `ProgramGen`): a typed, folded IR expression -> its Python as a
`V`, dispatching on the node class through `EMITTERS`. Calls emit their statements into
`fn`, in p4c's evaluation order (`ordering.py`: operands left to right, an operand saved
before a later one's statements run, the lazy side of `&&`/`||`/`?:` behind an `if`).

Run-time representation: bit<N> = unsigned int, int<N> = signed int, bool = bool,
error / enum = int code (serializable enum: its value), varbit = (width, value) tuple,
headers/structs = generated classes (structs with __slots__, headers with class-level initial
values), header stacks = `Stack`. Arithmetic is
masked after each operation, as p4c's BMv2 back end computes.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.passes.emit_operators import OperatorEmit, cast_py, wrap_py
from p4emu.compiler.values import V, lit, unsigned_py, zero_value
from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, BoolT, InfIntT, StructT, TupleT


class ExprEmit(OperatorEmit):
    """`self` is the `ProgramGen`."""

    def emit_expr(self, e: I.Expr, fn) -> V:
        return EMITTERS[type(e)](self, e, fn)

    def emit_in_order(self, fn, parts: tuple[I.Expr, ...] | list[I.Expr]) -> list[V]:
        """Parts evaluated left to right (`in_order`); implicit conversions apply to the
        saved values."""
        cores = [unconverted(x) for x in parts]
        vals = self.in_order(fn, [(lambda c=c: self.emit_expr(c, fn)) for c in cores])
        return [reconvert(x, v) for x, v in zip(parts, vals, strict=True)]

    def _emit_constant(self, e: I.Expr, fn) -> V:
        return V(lit(e.const), e.type, e.const)

    def _emit_dont_care(self, e, fn) -> V:
        return V("None", e.type)

    def _emit_variable(self, e: I.VarRef | I.InstanceRef, fn) -> V:
        return V(e.binding.py, e.type, None, e.binding)

    def _emit_constant_ref(self, e: I.ConstRef, fn) -> V:
        return V(lit(e.const), e.type, e.const, e.binding)

    def _emit_not_a_value(self, e: I.TypeName | I.CallableRef, fn) -> V:
        return V("None", e.type, None, e.binding)

    def _emit_field(self, e: I.Field, fn) -> V:
        return V(f"{self.emit_expr(e.base, fn).py}.f_{e.name}", e.type)

    def _emit_method_ref(self, e: I.MethodRef, fn) -> V:
        return V("None", e.type, None, ("method", self.emit_expr(e.base, fn), e.name))

    def _emit_stack_property(self, e: I.StackProperty, fn) -> V:
        base = self.emit_expr(e.base, fn).py
        py = {"next": f"{base}.next_elem()", "last": f"{base}.last_elem()",
              "lastIndex": f"(({base}.nxt - 1) & 0xffffffff)", "nextIndex": f"{base}.nxt"}[e.name]
        return V(py, e.type)

    def _emit_apply_result_member(self, e: I.ApplyResultMember, fn) -> V:
        base = self.emit_expr(e.base, fn).py
        py = {"hit": f"{base}.hit", "miss": f"(not {base}.hit)", "action_run": f"{base}.action_id"}[e.name]
        return V(py, e.type)

    def _emit_header_query(self, e: I.HeaderQuery, fn) -> V:
        base = self.emit_expr(e.base, fn).py
        return V(f"{base}.is_valid()" if e.base.type.kind == "header_union" else f"{base}.valid", e.type)

    def _emit_stack_index(self, e: I.StackIndex, fn) -> V:
        base = self.emit_expr(e.base, fn)
        idx = self.emit_expr(e.index, fn)
        if idx.const is not None:
            return V(f"{base.py}.items[{idx.const}]", e.type)
        return V(f"{base.py}.at({idx.py})", e.type)

    def _emit_tuple_index(self, e: I.TupleIndex, fn) -> V:
        return V(f"{self.emit_expr(e.base, fn).py}[{e.index}]", e.type)

    def _emit_slice(self, e: I.Slice, fn) -> V:
        base = self.emit_expr(e.base, fn)
        t, bt = e.type, e.base.type
        src = unsigned_py(base)
        if e.lo == 0:
            return V(f"({src} & {t.mask})", t)
        if e.hi == bt.width - 1 and not bt.signed:
            return V(f"({src} >> {e.lo})", t)
        return V(f"(({src} >> {e.lo}) & {t.mask})", t)

    def _emit_ternary(self, e: I.Ternary, fn) -> V:
        c = self.emit_expr(e.cond, fn)
        a, la = self.capture(fn, lambda: self.emit_expr(e.then, fn), extra_indent=1)
        b, lb = self.capture(fn, lambda: self.emit_expr(e.other, fn), extra_indent=1)
        if la or lb:  # an arm has side effects: only the chosen arm may run them
            if isinstance(e.type, InfIntT):
                raise P4CompileError(e.loc, "?: width of the result cannot be inferred")
            return self.branch_join(fn, c, (a, la), (b, lb))
        if c.const is not None:
            return a if c.const else b
        return V(f"({a.py} if {c.py} else {b.py})", e.type)

    def _emit_cast(self, e: I.Cast, fn) -> V:
        v = self.emit_expr(e.operand, fn)
        if isinstance(e.type, StructT) and isinstance(e.operand.type, TupleT):  # a list as a struct
            return V(v.py, e.type, v.const, v.ref)
        return V(cast_py(v.py, e.operand.type, e.type), e.type, e.const)

    def _emit_convert(self, e: I.Convert, fn) -> V:
        return reconvert(e, self.emit_expr(unconverted(e), fn))

    def _emit_list_expr(self, e: I.ListExpr, fn) -> V:
        vals = self.emit_in_order(fn, e.items[:e.written])
        vals += [self.emit_expr(x, fn) for x in e.items[e.written:]]
        if isinstance(e.type, StructT):
            py = f"{e.type.py}.build({', '.join(v.py for v in vals)})"
        else:
            py = "(" + "".join(v.py + ", " for v in vals) + ")"
        return V(py, e.type, e.const, ("list", vals))

    def _emit_struct_expr(self, e: I.StructExpr, fn) -> V:
        written = self.emit_in_order(fn, [e.values[i] for i in e.order])
        by_index = dict(zip(e.order, written, strict=True))
        vals = [by_index[i] if i in by_index else self.emit_expr(x, fn) for i, x in enumerate(e.values)]
        py = f"{e.type.py}.build({', '.join(v.py for v in vals)})"
        return V(py, e.type, e.const, ("struct", vals))

    def _emit_invalid_header(self, e: I.InvalidHeader, fn) -> V:
        return V(f"{e.type.py}()", e.type, e.const)

    def _emit_default_value(self, e: I.DefaultValue, fn) -> V:
        if isinstance(e.type, (BitsT, BoolT)):
            return V(lit(e.const), e.type, e.const)
        return V(zero_value(e.type), e.type)

    def _emit_call(self, e: I.Call, fn) -> V:
        return self.emit_call(e, fn, as_statement=False)


def unconverted(e: I.Expr) -> I.Expr:
    while type(e) is I.Convert:
        e = e.operand
    return e


def reconvert(e: I.Expr, v: V) -> V:
    """`v` (the value of `e` without its implicit conversions) converted as `e` says."""
    if type(e) is not I.Convert:
        return v
    v = reconvert(e.operand, v)
    if e.const is not None:
        return V(lit(e.const), e.type, e.const)
    if isinstance(v.ty, InfIntT) and isinstance(e.type, BitsT):
        return V(wrap_py(v.py, e.type) if e.type.signed else f"({v.py} & {e.type.mask})", e.type)
    return V(v.py, e.type, v.const)


# the emitter of each IR node class, called as emit(self, e, fn)
EMITTERS: dict[type, Callable[..., V]] = {
    I.Constant: ExprEmit._emit_constant,
    I.DontCareValue: ExprEmit._emit_dont_care,
    I.VarRef: ExprEmit._emit_variable,
    I.InstanceRef: ExprEmit._emit_variable,
    I.ConstRef: ExprEmit._emit_constant_ref,
    I.TypeName: ExprEmit._emit_not_a_value,
    I.CallableRef: ExprEmit._emit_not_a_value,
    I.EnumMember: ExprEmit._emit_constant,
    I.ErrorMember: ExprEmit._emit_constant,
    I.Field: ExprEmit._emit_field,
    I.MethodRef: ExprEmit._emit_method_ref,
    I.StackProperty: ExprEmit._emit_stack_property,
    I.ApplyResultMember: ExprEmit._emit_apply_result_member,
    I.HeaderQuery: ExprEmit._emit_header_query,
    I.StackIndex: ExprEmit._emit_stack_index,
    I.TupleIndex: ExprEmit._emit_tuple_index,
    I.Slice: ExprEmit._emit_slice,
    I.Unary: OperatorEmit._emit_unary,
    I.Binary: OperatorEmit._emit_binary,
    I.Concat: OperatorEmit._emit_concat,
    I.CompoundEq: OperatorEmit._emit_compound_eq,
    I.Ternary: ExprEmit._emit_ternary,
    I.Cast: ExprEmit._emit_cast,
    I.Convert: ExprEmit._emit_convert,
    I.ListExpr: ExprEmit._emit_list_expr,
    I.StructExpr: ExprEmit._emit_struct_expr,
    I.InvalidHeader: ExprEmit._emit_invalid_header,
    I.DefaultValue: ExprEmit._emit_default_value,
    I.Call: ExprEmit._emit_call,
}
