"""The expression emitter, a pass of `ProgramGen`: a typed, folded IR expression -> its
Python as a `V`, dispatching on the node class through `EMITTERS`; operators are the
`OperatorEmitter`'s (`emit_operators.py`), calls the `CallEmitter`'s (`calls.py`). Calls
emit their statements into `fn`, in p4c's evaluation order (`ordering.py`: operands left
to right, an operand saved before a later one's statements run, the lazy side of
`&&`/`||`/`?:` behind an `if`).

Run-time representation: bit<N> = unsigned int, int<N> = signed int, bool = bool,
error / enum = int code (serializable enum: its value), varbit = (width, value) tuple,
headers/structs = generated classes (structs with __slots__, headers with class-level initial
values), header stacks = `Stack`. Arithmetic is
masked after each operation, as p4c's BMv2 back end computes.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.ordering import branch_join, capture, in_order
from p4emu.compiler.passes.emit_operators import cast_py, wrap_py
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.values import V, lit, unsigned_py, zero_value
from p4emu.ir import expressions as I
from p4emu.lang.errors import P4CompileError
from p4emu.lang.types import BitsT, BoolT, InfIntT, StructT, TupleT


class ExpressionEmitter(CompilePass):
    """Typed expressions -> `V`s (their Python), statements they need emitted into `fn`."""

    USES = ("operators", "calls")

    def emit(self, e: I.Expr, fn) -> V:
        return EMITTERS[type(e)](self, e, fn)

    def emit_in_order(self, fn, parts: tuple[I.Expr, ...] | list[I.Expr]) -> list[V]:
        """Parts evaluated left to right (`in_order`); implicit conversions apply to the
        saved values."""
        cores = [unconverted(x) for x in parts]
        vals = in_order(fn, [(lambda c=c: self.emit(c, fn)) for c in cores])
        return [reconvert(x, v) for x, v in zip(parts, vals, strict=True)]

    def emit_lvalue(self, e: I.Expr, fn) -> V:
        """A checked lvalue (`check_lvalue`); a slice's V refers to its base ("slice", base
        V, hi, lo) for `assignments.store`."""
        e = fold(e)
        if isinstance(e, I.Slice):
            base = self.emit_lvalue(e.base, fn)
            read = self.emit(e, fn)
            return V(read.py, read.ty, None, ("slice", base, e.hi, e.lo))
        return self.emit(e, fn)

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
        return V(f"{self.emit(e.base, fn).py}.f_{e.name}", e.type)

    def _emit_method_ref(self, e: I.MethodRef, fn) -> V:
        return V("None", e.type, None, ("method", self.emit(e.base, fn), e.name))

    def _emit_stack_property(self, e: I.StackProperty, fn) -> V:
        base = self.emit(e.base, fn).py
        py = {"next": f"{base}.next_elem()", "last": f"{base}.last_elem()",
              "lastIndex": f"(({base}.nxt - 1) & 0xffffffff)", "nextIndex": f"{base}.nxt"}[e.name]
        return V(py, e.type)

    def _emit_apply_result_member(self, e: I.ApplyResultMember, fn) -> V:
        base = self.emit(e.base, fn).py
        py = {"hit": f"{base}.hit", "miss": f"(not {base}.hit)", "action_run": f"{base}.action_id"}[e.name]
        return V(py, e.type)

    def _emit_header_query(self, e: I.HeaderQuery, fn) -> V:
        base = self.emit(e.base, fn).py
        return V(f"{base}.is_valid()" if e.base.type.kind == "header_union" else f"{base}.valid", e.type)

    def _emit_stack_index(self, e: I.StackIndex, fn) -> V:
        base = self.emit(e.base, fn)
        idx = self.emit(e.index, fn)
        if idx.const is not None:
            return V(f"{base.py}.items[{idx.const}]", e.type)
        return V(f"{base.py}.at({idx.py})", e.type)

    def _emit_tuple_index(self, e: I.TupleIndex, fn) -> V:
        return V(f"{self.emit(e.base, fn).py}[{e.index}]", e.type)

    def _emit_slice(self, e: I.Slice, fn) -> V:
        base = self.emit(e.base, fn)
        t, bt = e.type, e.base.type
        src = unsigned_py(base)
        if e.lo == 0:
            return V(f"({src} & {t.mask})", t)
        if e.hi == bt.width - 1 and not bt.signed:
            return V(f"({src} >> {e.lo})", t)
        return V(f"(({src} >> {e.lo}) & {t.mask})", t)

    def _emit_ternary(self, e: I.Ternary, fn) -> V:
        c = self.emit(e.cond, fn)
        a, la = capture(fn, lambda: self.emit(e.then, fn), extra_indent=1)
        b, lb = capture(fn, lambda: self.emit(e.other, fn), extra_indent=1)
        if la or lb:  # an arm has side effects: only the chosen arm may run them
            if isinstance(e.type, InfIntT):
                raise P4CompileError(e.loc, "?: width of the result cannot be inferred")
            return branch_join(fn, c, (a, la), (b, lb))
        if c.const is not None:
            return a if c.const else b
        return V(f"({a.py} if {c.py} else {b.py})", e.type)

    def _emit_cast(self, e: I.Cast, fn) -> V:
        v = self.emit(e.operand, fn)
        if isinstance(e.type, StructT) and isinstance(e.operand.type, TupleT):  # a list as a struct
            return V(v.py, e.type, v.const, v.ref)
        return V(cast_py(v.py, e.operand.type, e.type), e.type, e.const)

    def _emit_convert(self, e: I.Convert, fn) -> V:
        return reconvert(e, self.emit(unconverted(e), fn))

    def _emit_list_expr(self, e: I.ListExpr, fn) -> V:
        vals = self.emit_in_order(fn, e.items[:e.written])
        vals += [self.emit(x, fn) for x in e.items[e.written:]]
        if isinstance(e.type, StructT):
            py = f"{e.type.py}.build({', '.join(v.py for v in vals)})"
        else:
            py = "(" + "".join(v.py + ", " for v in vals) + ")"
        return V(py, e.type, e.const, ("list", vals))

    def _emit_struct_expr(self, e: I.StructExpr, fn) -> V:
        written = self.emit_in_order(fn, [e.values[i] for i in e.order])
        by_index = dict(zip(e.order, written, strict=True))
        vals = [by_index[i] if i in by_index else self.emit(x, fn) for i, x in enumerate(e.values)]
        py = f"{e.type.py}.build({', '.join(v.py for v in vals)})"
        return V(py, e.type, e.const, ("struct", vals))

    def _emit_invalid_header(self, e: I.InvalidHeader, fn) -> V:
        return V(f"{e.type.py}()", e.type, e.const)

    def _emit_default_value(self, e: I.DefaultValue, fn) -> V:
        if isinstance(e.type, (BitsT, BoolT)):
            return V(lit(e.const), e.type, e.const)
        return V(zero_value(e.type), e.type)

    def _emit_operator(self, e: I.Unary | I.Binary | I.Concat | I.CompoundEq, fn) -> V:
        return self.operators.emit(e, fn)

    def _emit_call(self, e: I.Call, fn) -> V:
        return self.calls.emit_call(e, fn, as_statement=False)


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


# the emitter of each IR node class, called as emit(the ExpressionEmitter, e, fn)
EMITTERS: dict[type, Callable[..., V]] = {
    I.Constant: ExpressionEmitter._emit_constant,
    I.DontCareValue: ExpressionEmitter._emit_dont_care,
    I.VarRef: ExpressionEmitter._emit_variable,
    I.InstanceRef: ExpressionEmitter._emit_variable,
    I.ConstRef: ExpressionEmitter._emit_constant_ref,
    I.TypeName: ExpressionEmitter._emit_not_a_value,
    I.CallableRef: ExpressionEmitter._emit_not_a_value,
    I.EnumMember: ExpressionEmitter._emit_constant,
    I.ErrorMember: ExpressionEmitter._emit_constant,
    I.Field: ExpressionEmitter._emit_field,
    I.MethodRef: ExpressionEmitter._emit_method_ref,
    I.StackProperty: ExpressionEmitter._emit_stack_property,
    I.ApplyResultMember: ExpressionEmitter._emit_apply_result_member,
    I.HeaderQuery: ExpressionEmitter._emit_header_query,
    I.StackIndex: ExpressionEmitter._emit_stack_index,
    I.TupleIndex: ExpressionEmitter._emit_tuple_index,
    I.Slice: ExpressionEmitter._emit_slice,
    I.Unary: ExpressionEmitter._emit_operator,
    I.Binary: ExpressionEmitter._emit_operator,
    I.Concat: ExpressionEmitter._emit_operator,
    I.CompoundEq: ExpressionEmitter._emit_operator,
    I.Ternary: ExpressionEmitter._emit_ternary,
    I.Cast: ExpressionEmitter._emit_cast,
    I.Convert: ExpressionEmitter._emit_convert,
    I.ListExpr: ExpressionEmitter._emit_list_expr,
    I.StructExpr: ExpressionEmitter._emit_struct_expr,
    I.InvalidHeader: ExpressionEmitter._emit_invalid_header,
    I.DefaultValue: ExpressionEmitter._emit_default_value,
    I.Call: ExpressionEmitter._emit_call,
}
