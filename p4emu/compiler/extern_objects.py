"""Extern objects of v1model (`ExternObjectEmitter`, a pass of `ProgramGen`): instances of registers, counters,
meters and action profiles/selectors, checked into typed `ExternInstance`s by
`passes/check_declarations.py` (their control-plane description and the module-level
name, `REG_n` ..., that the Pipeline binds to the run-time object), and the calls of
their methods. Extern functions are in `externs.py`.
"""

from __future__ import annotations

from p4emu.compiler.assignments import store, store_if
from p4emu.compiler.blocks import new_fn
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.ordering import in_order
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.values import V, key_width
from p4emu.ir import declarations as D
from p4emu.ir import expressions as I
from p4emu.lang.types import VOID, BitsT, BoolT


class ExternObjectEmitter(CompilePass):
    """Extern instances (their control-plane description and run-time name) and the calls
    of their methods."""

    USES = ("exprs",)

    # -- instantiation (checked by `passes/check_declarations.py`) ------------------------
    def emit_instance(self, inst: D.ExternInstance) -> str:
        """The control-plane description of `inst` and the module-level name bound to its
        run-time object."""
        uid = self.next_id()
        kind, name, vals, loc = inst.kind, inst.name, inst.args, inst.loc
        annotations = list(inst.annotations)
        if kind == "register":
            vt = inst.type.type_args.get("T")
            self.out.objects["registers"].append(dict(
                name=name, size=vals[0].const, bitwidth=key_width(vt, loc), annotations=annotations,
                signed=isinstance(vt, BitsT) and vt.signed, is_bool=isinstance(vt, BoolT)))
            py = f"REG_{uid}"
            self.out.bindings[py] = ("register", name)
        elif kind in ("counter", "direct_counter"):
            unit = (vals[-1].type.members[vals[-1].const])
            size = vals[0].const if kind == "counter" else 0
            self.out.objects["counters"].append(dict(name=name, size=size, unit=unit, direct=kind == "direct_counter", annotations=annotations))
            py = f"CNT_{uid}"
            if kind == "counter":
                self.out.bindings[py] = ("counter", name)
        elif kind in ("meter", "direct_meter"):
            unit = (vals[-1].type.members[vals[-1].const])
            size = vals[0].const if kind == "meter" else 0
            self.out.objects["meters"].append(dict(name=name, size=size, unit=unit, direct=kind == "direct_meter",
                                               annotations=annotations, loc=loc))
            py = f"MTR_{uid}"
            if kind == "meter":
                self.out.bindings[py] = ("meter", name)
        elif kind == "action_profile":
            self.out.objects["action_profiles"].append(dict(name=name, size=vals[0].const, selector=None, annotations=annotations))
            py = f"AP_{uid}"
        else:  # action_selector
            algo = vals[0].type.members[vals[0].const]
            self.out.objects["action_profiles"].append(dict(name=name, size=vals[1].const, selector=algo, annotations=annotations))
            py = f"AP_{uid}"
        return py

    # -- method calls (checked by `passes/check_extern_methods.py`) ---------------------
    def emit_method_call(self, e: I.Call, base: V, name: str, fn) -> V:
        inst = base.ref
        kind = base.ty.name
        val_t = base.ty.type_args.get("T")
        values = [a.value for a in e.args]
        if kind == "register" and name == "read":
            res = self.exprs.emit_lvalue(values[0], fn)
            idx = self.exprs.emit(fold(values[1]), fn)
            tmp = fn.fresh("rv")
            fn.emit(f"{tmp} = {inst.py}.read({idx.py})")
            conv = tmp
            if isinstance(val_t, BitsT) and val_t.signed:
                h = 1 << (val_t.width - 1)
                conv = f"(({tmp} ^ {h}) - {h})"
            elif isinstance(val_t, BoolT):
                conv = f"({tmp} != 0)"
            store_if(f"{tmp} is not None", res, conv, fn)
        elif kind == "register":  # write: left to right, as p4c's SideEffectOrdering
            idx, v = in_order(fn, [lambda x=x: self.exprs.emit(fold(x), fn) for x in values])
            py = v.py
            if isinstance(val_t, BitsT) and val_t.signed:
                py = f"({py} & {val_t.mask})"
            elif isinstance(val_t, BoolT):
                py = f"int({py})"
            fn.emit(f"{inst.py}.write({idx.py}, {py})")
        elif kind == "counter":
            idx = self.exprs.emit(fold(values[0]), fn)
            fn.emit(f"{inst.py}.count({idx.py}, PS.length)")
        elif kind == "meter":
            idx = self.exprs.emit(fold(values[0]), fn)
            res = self.exprs.emit_lvalue(values[1], fn)
            tmp = fn.fresh("color")
            fn.emit(f"{tmp} = {inst.py}.execute({idx.py}, PS.length, PS.now_us)")
            store_if(f"{tmp} is not None", res, tmp, fn)
        elif kind == "direct_meter":
            res = self.exprs.emit_lvalue(values[0], fn)
            store_if("PS.meter_color is not None", res, "PS.meter_color", fn)
            owner = getattr(fn, "owner", None)
            if owner is not None and inst.full_name not in self.out.direct_meter_writers:
                # p4c turns `read(x)` into the meter's JSON "result_target": BMv2 writes the
                # colour there on every hit of the table, before the action and whichever
                # action it is; the table calls this writer (tables.py)
                writer = new_fn(owner, self.next_id)
                store(res, "color", writer)
                wname = f"DMW_{len(self.out.direct_meter_writers)}_{inst.py}"
                self.out.code.append(f"def {wname}({owner.sig}, color):")
                self.out.code += writer.body()
                self.out.direct_meter_writers[inst.full_name] = wname
        return V("None", VOID)  # direct_counter.count(): BMv2 counts every hit
