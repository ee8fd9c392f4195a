"""packet_in and packet_out methods: extract (fixed, variable-size and into `_`),
lookahead, advance, length, emit (mixin of `ProgramGen`)."""

from __future__ import annotations

from p4emu.compiler.lookahead import from_bits_lines, lookahead_width
from p4emu.compiler.structs import inline_emit_line
from p4emu.compiler.values import V, zero_value
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import BOOL, VOID, BitsT, BoolT, StackT, StructT


def _no_dont_care(e: A.Call, name: str) -> None:
    """packet_in/packet_out methods take their type from their argument: `_` has none
    (p4c: "could not infer a type for variable T")."""
    for a in e.args:
        if a.value is None:
            raise P4CompileError(a.loc, f"{name}: `_` is not allowed here (its type cannot be inferred)")


class PacketGen:
    def packet_in_call(self, e: A.Call, base: V, name: str, scope, fn, as_statement) -> V:
        pk = base.py
        if name == "extract" and e.type_args and len(e.args) == 1 and e.args[0].value is None:
            # `extract<H>(_)`: extract into a header nobody reads, i.e. skip one H
            t = self.resolve_type(e.type_args[0], scope)
            if not isinstance(t, StructT) or t.kind != "header" or t.varbit_field is not None:
                raise P4CompileError(e.loc, f"extract: {t} is not a fixed-size header")
            fn.emit(f"{t.py}().extract({pk})")
            return V("None", VOID)
        _no_dont_care(e, name)
        if name == "extract":
            if len(e.args) not in (1, 2):
                raise P4CompileError(e.loc, "extract expects 1 or 2 arguments")
            target = self.lvalue(e.args[0].value, scope, fn)
            t = target.ty
            if not isinstance(t, StructT) or t.kind != "header":
                raise P4CompileError(e.args[0].loc, f"extract: {t} is not a header")
            arg = e.args[0].value
            union = None
            if isinstance(arg, A.Member) and isinstance(arg.expr.ty, StructT) and arg.expr.ty.kind == "header_union":
                # the union is evaluated once: `us.next.a` must take one stack element,
                # not one for the extract and another for invalidating the siblings
                union = fn.fresh("un")
                fn.emit(f"{union} = {self.lvalue(arg.expr, scope, fn).py}")
                target = V(f"{union}.f_{arg.name}", t)
            if len(e.args) == 2:
                n = self.expr(e.args[1].value, scope, fn, BitsT(32))
                fn.emit(f"{target.py}.extract_var({pk}, {n.py})")
            else:
                if t.varbit_field is not None:
                    raise P4CompileError(e.loc, f"extract of {t.name} (with a varbit field) needs a size argument")
                fn.emit(f"{target.py}.extract({pk})")
            if union is not None:
                fn.emit(f"{union}.only_valid('f_{arg.name}')")
            return V("None", VOID)
        if name == "lookahead":
            if not e.type_args:
                raise P4CompileError(e.loc, "lookahead needs a type argument")
            t = self.resolve_type(e.type_args[0], scope)
            peek = "peek_bits_unchecked" if self.walk.in_select_key else "peek_bits"
            if isinstance(t, BitsT):
                py = f"{pk}.{peek}({t.width})"
                if t.signed:
                    h = 1 << (t.width - 1)
                    py = f"(({py} ^ {h}) - {h})"
                if as_statement:
                    return V("None", VOID)
                return V(py, t)
            if isinstance(t, BoolT):
                return V(f"({pk}.{peek}(1) == 1)", BOOL)
            if isinstance(t, StructT) and t.kind == "header" and t.varbit_field is None \
                    and all(not isinstance(ft, StructT) for _, ft in t.fields):
                return V(f"{t.py}.peek({pk}, {peek == 'peek_bits'})", t)
            width = lookahead_width(t)
            if width is None:
                raise unsupported(e.loc, f"lookahead<{t}>")
            bits, obj = fn.fresh("la"), fn.fresh("lo")
            fn.emit(f"{bits} = {pk}.{peek}({width})")
            fn.emit(f"{obj} = {zero_value(t)}")
            for line in from_bits_lines(t, bits, width, obj):
                fn.emit(line)
            return V(obj, t)
        if name == "advance":
            n = self.expr(e.args[0].value, scope, fn, BitsT(32))
            fn.emit(f"{pk}.advance({n.py})")
            return V("None", VOID)
        if name == "length":
            return V(f"{pk}.total_length()", BitsT(32))
        raise P4CompileError(e.loc, f"packet_in has no method {name}")

    def packet_out_call(self, e: A.Call, base: V, name: str, scope, fn) -> V:
        if name != "emit" or len(e.args) != 1:
            raise P4CompileError(e.loc, f"packet_out: unknown method {name}")
        _no_dont_care(e, name)
        v = self.expr(e.args[0].value, scope, fn)
        if not isinstance(v.ty, (StructT, StackT)):
            raise P4CompileError(e.args[0].loc, f"emit: {v.ty} is not a header, stack or struct")
        if isinstance(v.ty, StructT) and v.ty.kind == "header" and v.ty.varbit_field is None:
            h = fn.fresh("eh")
            fn.emit(f"{h} = {v.py}")
            line = inline_emit_line(v.ty, h, base.py, e.loc)
            fn.emit(line if line is not None else f"{h}.emit({base.py})")
            return V("None", VOID)
        fn.emit(f"{v.py}.emit({base.py})")
        return V("None", VOID)

    # -- helpers -----------------------------------------------------------------------
