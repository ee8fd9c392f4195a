"""Method calls of extern objects and packets in the type checker (`ExternMethodChecker`, a
pass of the `ProgramChecker`): register read/write, counter count, meter execute_meter,
direct_meter read (`EXTERN_METHODS`) and packet_in extract/lookahead/advance/length,
packet_out emit. Each is checked as p4c and BMv2's back end check it and gets its
`ir.Argument`s in parameter order; the emitters are in `extern_objects.py` and
`packets.py`."""

from __future__ import annotations

from p4emu.compiler.analysis import expr_text
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.lookahead import lookahead_width
from p4emu.compiler.passes.check_arguments import bind_args
from p4emu.compiler.passes.conversions import convert
from p4emu.ir import expressions as I
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import VOID, BitsT, BoolT, ObjectT, StackT, StructT, TypeVarT

# the methods of extern objects that p4emu generates, by (extern type, method)
EXTERN_METHODS = {("register", "read"), ("register", "write"), ("counter", "count"),
                  ("direct_counter", "count"), ("meter", "execute_meter"), ("direct_meter", "read")}

Args = tuple[I.Argument, ...]


class ExternMethodChecker(CompilePass):
    """The method calls of extern objects, packet_in and packet_out."""

    USES = ("types", "exprs", "arguments")

    # -- extern objects ----------------------------------------------------------------
    def check_extern_method(self, e: A.Call, t: ObjectT, name: str, scope) -> Args:
        """The arguments of method `name` of extern object type `t`, in parameter order."""
        if (t.name, name) not in EXTERN_METHODS:
            raise P4CompileError(e.loc, f"{t.name} has no method {name}")
        args = e.args
        if any(a.name is not None for a in args):  # `r.read(index = 1, result = x)`
            args = self._positional(e, t.decl, name)
        idx_t = t.type_args.get("I", BitsT(32))
        val_t = t.type_args.get("T")
        if t.name == "register" and name == "read":
            if isinstance(val_t, StructT) and isinstance(args[0].value, A.Member):
                # p4c's BMv2 mid end flattens structs inside the block parameters
                # (FlattenInterfaceStructs) and cannot then write one as a whole
                raise P4CompileError(args[0].loc, f"{expr_text(args[0].value)}: writing to a "
                                                  "structure is not supported on this target")
            res = self._lvalue_of(args[0], scope)
            if val_t is not None and res.type != val_t and not (
                    isinstance(val_t, TypeVarT) or res.type is val_t):
                raise P4CompileError(args[0].loc, f"register read: result type {res.type} does not match {val_t}")
            return res, self._converted(args[1], idx_t, e.loc, scope)
        if t.name == "register":  # write
            return self._converted(args[0], idx_t, e.loc, scope), self._converted(args[1], val_t, e.loc, scope)
        if t.name == "counter":
            return (self._converted(args[0], idx_t, e.loc, scope),)
        if t.name == "meter":
            return self._converted(args[0], idx_t, e.loc, scope), self._lvalue_of(args[1], scope)
        if t.name == "direct_meter":
            return (self._lvalue_of(args[0], scope),)
        return ()  # direct_counter.count(): BMv2 counts every hit of the table

    def _converted(self, a: A.Arg, t, loc, scope) -> I.Argument:
        """`a` of type `t` (errors at the call's location `loc`, as p4c reports them)."""
        v = convert(self.exprs.check(a.value, scope, t), t, loc)
        return I.Argument("in", v.type, v, a.loc)

    def _lvalue_of(self, a: A.Arg, scope) -> I.Argument:
        v = self.arguments.check_lvalue(a.value, scope)
        return I.Argument("out", v.type, v, a.loc)

    def _positional(self, e: A.Call, decl, name: str) -> list[A.Arg]:
        """The arguments of call `e` of method `name` of extern `decl`, named ones put in order."""
        methods = [m for m in decl.methods if m.name == name and m.ret is not None
                   and len(m.params) == len(e.args)]
        if not methods:
            raise P4CompileError(e.loc, f"{decl.name}.{name}: no overload takes {len(e.args)} arguments")
        pairs = bind_args(methods[0].params, e.args, e.loc, f"{decl.name}.{name}")
        return [A.Arg(a.loc, None, a.value) for _, a in pairs]

    # -- packets -----------------------------------------------------------------------
    def check_packet_in_call(self, e: A.Call, method: I.MethodRef, name: str, scope) -> I.Call:
        if name == "extract" and e.type_args and len(e.args) == 1 and e.args[0].value is None:
            # `extract<H>(_)`: extract into a header nobody reads, i.e. skip one H
            t = self.types.resolve(e.type_args[0], scope)
            if not isinstance(t, StructT) or t.kind != "header" or t.varbit_field is not None:
                raise P4CompileError(e.loc, f"extract: {t} is not a fixed-size header")
            return I.Call(VOID, e.loc, method, type_args=(("T", t),))
        _no_dont_care(e, name)
        if name == "extract":
            if len(e.args) not in (1, 2):
                raise P4CompileError(e.loc, "extract expects 1 or 2 arguments")
            target = self._lvalue_of(e.args[0], scope)
            t = target.type
            if not isinstance(t, StructT) or t.kind != "header":
                raise P4CompileError(e.args[0].loc, f"extract: {t} is not a header")
            if len(e.args) == 2:
                n = self.exprs.check(e.args[1].value, scope, BitsT(32))
                return I.Call(VOID, e.loc, method, (target, I.Argument("in", n.type, n, e.args[1].loc)))
            if t.varbit_field is not None:
                raise P4CompileError(e.loc, f"extract of {t.name} (with a varbit field) needs a size argument")
            return I.Call(VOID, e.loc, method, (target,))
        if name == "lookahead":
            if not e.type_args:
                raise P4CompileError(e.loc, "lookahead needs a type argument")
            t = self.types.resolve(e.type_args[0], scope)
            if not (isinstance(t, BitsT | BoolT) or _plain_header(t)) and lookahead_width(t) is None:
                raise unsupported(e.loc, f"lookahead<{t}>")
            return I.Call(t, e.loc, method, type_args=(("T", t),))
        if name == "advance":
            n = self.exprs.check(e.args[0].value, scope, BitsT(32))
            return I.Call(VOID, e.loc, method, (I.Argument("in", n.type, n, e.args[0].loc),))
        if name == "length":
            return I.Call(BitsT(32), e.loc, method)
        raise P4CompileError(e.loc, f"packet_in has no method {name}")

    def check_packet_out_call(self, e: A.Call, method: I.MethodRef, name: str, scope) -> I.Call:
        if name != "emit" or len(e.args) != 1:
            raise P4CompileError(e.loc, f"packet_out: unknown method {name}")
        _no_dont_care(e, name)
        v = self.exprs.check(e.args[0].value, scope)
        if not isinstance(v.type, (StructT, StackT)):
            raise P4CompileError(e.args[0].loc, f"emit: {v.type} is not a header, stack or struct")
        return I.Call(VOID, e.loc, method, (I.Argument("in", v.type, v, e.args[0].loc),))


def _no_dont_care(e: A.Call, name: str) -> None:
    """packet_in/packet_out methods take their type from their argument: `_` has none
    (p4c: "could not infer a type for variable T")."""
    for a in e.args:
        if a.value is None:
            raise P4CompileError(a.loc, f"{name}: `_` is not allowed here (its type cannot be inferred)")


def _plain_header(t) -> bool:
    """A fixed-size header of bit fields: peeked by its class's own `peek`."""
    return (isinstance(t, StructT) and t.kind == "header" and t.varbit_field is None
            and all(not isinstance(ft, StructT) for _, ft in t.fields))
