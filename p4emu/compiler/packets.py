"""packet_in and packet_out methods: extract (fixed, variable-size and into `_`),
lookahead, advance, length, emit (`PacketEmitter`, a pass of `ProgramGen`), emitted from
the calls `passes/check_extern_methods.py` checked."""

from __future__ import annotations

from p4emu.compiler.generated import CompilePass
from p4emu.compiler.lookahead import from_bits_lines, lookahead_width
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.structs import inline_emit_line
from p4emu.compiler.values import V, zero_value
from p4emu.ir import expressions as I
from p4emu.lang.types import BOOL, VOID, BitsT, BoolT, StructT, Type


class PacketEmitter(CompilePass):
    """The methods of packet_in and packet_out."""

    USES = ("exprs",)

    def emit_packet_in_call(self, e: I.Call, base: V, name: str, fn, as_statement) -> V:
        pk = base.py
        if name == "extract" and not e.args:  # `extract<H>(_)`: skip one H
            fn.emit(f"{e.type_args[0][1].py}().extract({pk})")
            return V("None", VOID)
        if name == "extract":
            target_ir = e.args[0].value
            target = self.exprs.emit_lvalue(target_ir, fn)
            t = target.ty
            union = None
            if isinstance(target_ir, I.Field) and isinstance(target_ir.base.type, StructT) \
                    and target_ir.base.type.kind == "header_union":
                # the union is evaluated once: `us.next.a` must take one stack element,
                # not one for the extract and another for invalidating the siblings
                union = fn.fresh("un")
                fn.emit(f"{union} = {self.exprs.emit_lvalue(target_ir.base, fn).py}")
                target = V(f"{union}.f_{target_ir.name}", t)
            if len(e.args) == 2:
                n = self.exprs.emit(fold(e.args[1].value), fn)
                fn.emit(f"{target.py}.extract_var({pk}, {n.py})")
            else:
                fn.emit(f"{target.py}.extract({pk})")
            if union is not None:
                fn.emit(f"{union}.only_valid('f_{target_ir.name}')")
            return V("None", VOID)
        if name == "lookahead":
            return self._lookahead(e.type, pk, fn, as_statement)
        if name == "advance":
            n = self.exprs.emit(fold(e.args[0].value), fn)
            fn.emit(f"{pk}.advance({n.py})")
            return V("None", VOID)
        return V(f"{pk}.total_length()", BitsT(32))  # length()

    def _lookahead(self, t: Type, pk: str, fn, as_statement) -> V:
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
        bits, obj = fn.fresh("la"), fn.fresh("lo")
        fn.emit(f"{bits} = {pk}.{peek}({width})")
        fn.emit(f"{obj} = {zero_value(t)}")
        for line in from_bits_lines(t, bits, width, obj):
            fn.emit(line)
        return V(obj, t)

    def emit_packet_out_call(self, e: I.Call, base: V, fn) -> V:
        v = self.exprs.emit(fold(e.args[0].value), fn)
        if isinstance(v.ty, StructT) and v.ty.kind == "header" and v.ty.varbit_field is None:
            h = fn.fresh("eh")
            fn.emit(f"{h} = {v.py}")
            line = inline_emit_line(v.ty, h, base.py, e.loc)
            fn.emit(line if line is not None else f"{h}.emit({base.py})")
            return V("None", VOID)
        fn.emit(f"{v.py}.emit({base.py})")
        return V("None", VOID)
