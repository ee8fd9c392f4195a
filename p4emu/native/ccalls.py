"""Actions and functions -> C functions, and their calls (mixin of `p4emu.native.cgen.CGen`).

Directionless and `in` parameters are passed by value (a struct too: C copies it);
`out`/`inout` ones by pointer to a temporary the caller copies in before the call and out
after it, also after an `exit` (status 1), as p4c's copy-in/copy-out does. A function's
result comes back through `ret`; a function call used as a value is hoisted before its
statement, like a table apply.
"""

from __future__ import annotations

from p4emu.compiler.passes.check_blocks import function_key
from p4emu.compiler.scope import ActionB, FuncB
from p4emu.ir import expressions as I
from p4emu.lang.types import BitsT, StructT, VoidT
from p4emu.native.cexpr import has_call, scalar
from p4emu.native.errors import refuse


class CallC:
    """`self` is the `CGen`."""

    def _ctype_any(self, t, loc) -> str:
        if isinstance(t, StructT):
            return self.ctype_of(t)
        st = scalar(t, loc)
        return "int64_t" if isinstance(st, BitsT) and st.signed else "uint64_t"

    def _out_init(self, c: str, t) -> None:
        """`out` headers start invalid (`emit_out_init`)."""
        if isinstance(t, StructT) and t.kind == "header":
            self.line(f"{c}.valid = 0;")
        elif isinstance(t, StructT):
            for fname, ft in t.fields:
                self._out_init(f"{c}.f_{fname}", ft)

    def _callee(self, name: str, params, body, ret_type, action: bool) -> str:
        """Declare and generate one action/function; returns its C name."""
        cparams = []
        saved = (self.lines, self.ind, self.block_kind, self.ret_type)
        self.lines, self.ind, self.block_kind = [], 1, "control"
        self.ret_type = None if ret_type is None or isinstance(ret_type, VoidT) else ret_type
        if self.ret_type is not None:
            cparams.append(f"{self._ctype_any(self.ret_type, None)} *ret")
        for i, p in enumerate(params):
            ct = self._ctype_any(p.type, p.loc)
            if action and p.direction == "":
                st = scalar(p.type, p.loc)
                if isinstance(st, BitsT) and st.signed:
                    raise refuse(f"action {name}: a signed action-data parameter", p.loc)
            if p.direction in ("out", "inout"):
                cparams.append(f"{ct} *a_{i}")
                self.names[id(p.binding)] = f"(*a_{i})"
                if p.direction == "out":
                    self._out_init(f"(*a_{i})", p.type)
            else:
                cparams.append(f"{ct} a_{i}")
                self.names[id(p.binding)] = f"a_{i}"
        if body is None:
            raise refuse(f"{name} without a checked body")
        for s in body.stmts:
            self.stmt(s)
        self.line("(void)st; (void)P;")
        self.line("return 0;")
        fname = f"{'A' if action else 'F'}_{len(self.protos)}_{name.replace('.', '_')}"
        sig = f"static int {fname}(st_t *st, pkt_t *P{''.join(', ' + x for x in cparams)})"
        self.protos.append(sig + ";")
        self.functions.append([sig + " {", *self.lines, "}"])
        self.lines, self.ind, self.block_kind, self.ret_type = saved
        return fname

    def action_fn(self, b: ActionB) -> str:
        if id(b) not in self.action_fns:
            self.action_fns[id(b)] = f"pending_{id(b)}"  # (actions do not recurse)
            self.action_fns[id(b)] = self._callee(b.full_name, b.params, b.body, None, True)
        return self.action_fns[id(b)]

    def function_fn(self, b: FuncB, tyenv: dict) -> tuple[str, object]:
        key = (id(b), function_key(b, tyenv))
        checked = b.variants.get(key[1])
        if checked is None:
            raise refuse(f"the function {b.decl.name} (not checked)")
        if key not in self.function_fns:
            self.function_fns[key] = self._callee(b.decl.name, checked.params, checked.body,
                                                  checked.ret_type, False)
        return self.function_fns[key], checked.ret_type

    def emit_call(self, fname: str, e: I.Call, ret: str | None = None) -> None:
        """The call of `fname` with `e`'s arguments, copying out/inout ones in and out."""
        if any(has_call(a.value) for a in e.args if a.value is not None):
            raise refuse("a call among the arguments of a call", e.loc)
        self.line("{")
        self.ind += 1
        args, back = [], []
        if ret is not None:
            args.append(f"&{ret}")
        for a in e.args:
            if a.direction in ("out", "inout"):
                tmp = self.fresh("arg")
                ct = self._ctype_any(a.type, e.loc)
                if a.value is None:  # `_`
                    self.line(f"{ct} {tmp}; memset(&{tmp}, 0, sizeof {tmp});")
                else:
                    if a.value.type != a.type and not isinstance(a.type, StructT):
                        raise refuse(f"an {a.direction} argument of another type", e.loc)
                    lv = self.expr(a.value)
                    self.line(f"{ct} {tmp} = {lv};")
                    back.append(f"{lv} = {tmp};")
                args.append(f"&{tmp}")
            else:
                args.append(self.expr(a.value))
        self.line(f"int rc_ = {fname}(st, P{''.join(', ' + x for x in args)});")
        self.line("if (rc_ < 0) return rc_;")
        for line in back:
            self.line(line)
        self.line("if (rc_) return rc_;")
        self.ind -= 1
        self.line("}")

    def call_action(self, b: ActionB, e: I.Call) -> None:
        self.emit_call(self.action_fn(b), e)

    def call_function(self, b: FuncB, e: I.Call, as_value: bool) -> str | None:
        fname, ret_type = self.function_fn(b, dict(e.type_args))
        if not as_value or isinstance(ret_type, VoidT):
            if not isinstance(ret_type, VoidT):
                tmp = self.fresh("fr")
                self.line(f"{self._ctype_any(ret_type, e.loc)} {tmp};")
                self.emit_call(fname, e, tmp)
            else:
                self.emit_call(fname, e)
            return None
        if self.in_lazy:
            raise refuse("a function called inside &&, || or ?:", e.loc)
        tmp = self.fresh("fr")
        self.line(f"{self._ctype_any(ret_type, e.loc)} {tmp};")
        self.emit_call(fname, e, tmp)
        return tmp
