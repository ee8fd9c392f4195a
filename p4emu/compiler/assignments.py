"""Writing generated values into lvalues, for every pass of the emitter that writes one
(statements, calls' copy-out, extern results): `assign_value` (a checked assignment:
compound values are copied into the target, field by field for list and struct
expressions), `store` (a Python value into an lvalue that may be a slice, written back
into its base) and `store_if`. They need nothing but the generated function `fn`."""

from __future__ import annotations

from p4emu.compiler.values import V
from p4emu.lang.types import BitsT, StackT, StructT


def assign_value(lv: V, v: V, fn) -> None:
    """Emit `lv = v` of a checked assignment (`check_statements.check_assignment`)."""
    t = lv.ty
    if isinstance(t, StructT):
        if isinstance(v.ref, tuple) and v.ref[0] in ("list", "struct") and not (
            isinstance(v.ty, StructT) and v.ref[0] == "struct"
        ):
            tmp = fn.fresh("t")
            fn.emit(f"{tmp} = {lv.py}")
            for (fname, ftype), fv in zip(t.fields, v.ref[1], strict=True):
                assign_value(V(f"{tmp}.f_{fname}", ftype), fv, fn)
            if t.kind == "header":
                fn.emit(f"{tmp}.valid = True")
        elif isinstance(v.ty, StructT):
            fn.emit(f"{lv.py}.assign({v.py})")
        else:  # `{}`: an invalid header
            fn.emit(f"{lv.py}.valid = False")
        return
    if isinstance(t, StackT):
        fn.emit(f"{lv.py}.assign({v.py})")
        return
    fn.emit(f"{lv.py} = {v.py}")


def store(lv: V, value_py: str, fn) -> None:
    """Write a Python value to an lvalue (which may be a slice)."""
    if not (isinstance(lv.ref, tuple) and lv.ref[0] == "slice"):
        fn.emit(f"{lv.py} = {value_py}")
        return
    _, base, hi, lo = lv.ref
    w = hi - lo + 1
    v = V(value_py, BitsT(w))
    m = ((1 << w) - 1) << lo
    keep = base.ty.mask & ~m
    py = f"(({base.py} & {keep}) | (({v.py} << {lo}) & {m}))"
    if base.ty.signed:
        h = 1 << (base.ty.width - 1)
        py = f"(((({base.py} & {base.ty.mask}) & {keep}) | (({v.py} << {lo}) & {m})) ^ {h}) - {h}"
    store(base, py, fn)


def store_if(cond: str, lv: V, value_py: str, fn) -> None:
    """`store` when the Python condition `cond` holds (an extern's result, when it has one)."""
    fn.emit(f"if {cond}:")
    fn.indent += 1
    store(lv, value_py, fn)
    fn.indent -= 1
