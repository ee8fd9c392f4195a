"""The block checker (`BlockChecker`, a pass of the `ProgramChecker`): a parser or control
instance, checked whole into a `p4emu.ir.blocks.CheckedBlock` (its constructor arguments,
apply parameters, local declarations, then a control's apply body or a parser's states),
and the actions, functions and `T.apply()` instances its code uses.

What a construct uses is checked after it, depth first, in the order it is used
(`check_unit`): an action on its first call or table listing (p4c reports no error in an
action nothing uses), a function once per binding of its type parameters, the instance a
`T.apply()` makes. That is the order the emitter generates them in, which was the order
they were checked in while checking and emitting were interleaved: a program with two
errors still reports the same one first.
"""

from __future__ import annotations

from collections.abc import Callable

from p4emu.compiler.analysis import apply_continuations, substitutable
from p4emu.compiler.checks import check_parser_terminates
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.check_statements import Body, check_initial
from p4emu.compiler.scope import (
    ActionB,
    BlockFrame,
    ConstB,
    FuncB,
    InstB,
    Scope,
    VarB,
    tvar_scope,
)
from p4emu.compiler.values import is_compound
from p4emu.ir import blocks as B
from p4emu.ir import declarations as D
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import ObjectT


def full_name(prefix: str, decl: A.Decl) -> str:
    """The fully qualified (control-plane) name of `decl` declared in block `prefix`."""
    anno = A.find_annotation(decl.annotations, "name")
    local = anno.string() if anno is not None and anno.string() else decl.name
    if local.startswith("."):
        return local[1:]
    return f"{prefix}.{local}" if prefix else local


class BlockChecker(CompilePass):
    """Parser/control instances whole, and what their code uses after it (`check_unit`)."""

    USES = ("types", "exprs", "stmts", "parser_states", "tables", "declarations")

    # -- what a construct uses -----------------------------------------------------------
    def check_unit(self, check: Callable, *args):
        """`check(*args)`, then what it used (`use`), depth first."""
        saved = self.walk.uses
        self.walk.uses = uses = []
        try:
            result = check(*args)
        finally:
            self.walk.uses = saved
        for used in uses:
            self._check_used(*used)
        return result

    def use(self, *used) -> None:
        """Check `used` (an action, a function and its type arguments, or an instance made
        for `T.apply()`) after the construct being checked: every construct is checked
        inside a `check_unit`."""
        self.walk.uses.append(used)

    def _check_used(self, b, tyenv: dict | None = None) -> None:
        if isinstance(b, ActionB):
            if not b.checked:
                b.checked = True
                b.body = self.check_unit(self._check_action_body, b)
        elif isinstance(b, FuncB):
            key = function_key(b, tyenv)
            if key not in b.variants:
                b.variants[key] = None  # a recursive call: p4c refuses it elsewhere
                b.variants[key] = self.check_unit(self._check_function, b, tyenv)
        elif b.block is None:  # T.apply()
            b.block = self.check_instance(b.ty.decl, b.full_name, [], self.global_scope)

    # -- parser/control instances ----------------------------------------------------------
    def check_instance(self, decl, name: str, args: list[A.Arg], outer_scope: Scope,
                       t: ObjectT | None = None) -> B.CheckedBlock:
        """Instance `name` of parser/control `decl`, constructed with `args` (in
        `outer_scope`), checked whole."""
        return self.check_block_contents(self.declarations.check_block_instance(decl, name, args, outer_scope, t))

    def check_block_contents(self, inst: D.BlockInstance) -> B.CheckedBlock:
        decl = inst.decl
        kind = "parser" if isinstance(decl, A.ParserDecl) else "control"
        frame = BlockFrame(kind, inst.name, decl)
        scope = Scope(self.global_scope)
        saved = self.walk.in_parser, self.walk.frame
        try:
            made = self._bind_ctor_args(inst, scope, frame)
            params = tuple(self._declare_param(p, scope) for p in inst.params)
            frame.bindings.update((id(p), bp.binding) for p, bp in zip(decl.params, params, strict=True))
            self.walk.in_parser, self.walk.frame = kind == "parser", frame
            locals_ = tuple(x for x in (self.check_unit(self._check_bound_local, d, frame, scope)
                                        for d in decl.locals) if x is not None)
            if kind == "parser":
                self.walk.in_parser = True
                states = self._check_states(decl, scope)
                return B.CheckedBlock(inst, frame, params, made, locals_, states=states)
            self.walk.in_parser = False
            self.env.apply_sites.update(apply_continuations(decl.body))
            outs = any(not is_compound(p.type) and p.direction in ("out", "inout") for p in params)
            body = self.check_unit(self.stmts.check_block, decl.body, Scope(scope), Body("control", None, outs))
            return B.CheckedBlock(inst, frame, params, made, locals_, body=body)
        finally:
            self.walk.in_parser, self.walk.frame = saved

    def _bind_ctor_args(self, inst: D.BlockInstance, scope: Scope, frame: BlockFrame) -> tuple[InstB, ...]:
        """Bind the checked constructor arguments of `inst` in its scope; the instances made
        for arguments (p4c inlines each into the block that receives it)."""
        made = []
        params = {p.name: p for p in inst.decl.ctor_params}
        for a in inst.args:
            if a.block is not None:
                b = a.block
                made.append(InstB(b.type.kind, b.type, b.name, "", None, block=self.check_block_contents(b)))
                binding = made[-1]
            elif a.instance is not None:
                binding = a.instance
            else:
                binding = ConstB(a.type, a.value.const)
            scope.bind(a.name, binding)
            frame.bindings[id(params[a.name])] = binding
        return tuple(made)

    def _check_bound_local(self, d: A.Decl, frame: BlockFrame, scope: Scope) -> B.Local | None:
        """`_check_local`, and the binding `d` got recorded in `frame`."""
        local = self._check_local(d, frame, scope)
        frame.bindings[id(d)] = scope.names[d.name]
        return local

    def _declare_param(self, p: D.BlockParam, scope: Scope) -> B.Parameter:
        b = VarB(p.type, None, writable=p.direction not in ("in", ""), direction=p.direction)
        scope.declare(p.name, b, p.loc)
        return B.Parameter(p.name, p.direction, p.type, b, p.loc)

    def _check_local(self, d: A.Decl, frame: BlockFrame, scope: Scope) -> B.Local | None:
        if isinstance(d, A.VarDecl):
            if d.is_const:
                c = self.declarations.check_const_decl(d, scope, d.loc)
                scope.declare(d.name, ConstB(c.type, c.const), d.loc)
                return None
            t = self.types.resolve(d.type, scope)
            init = None
            if d.init is not None:
                init = check_initial(t, self.exprs.check(d.init, scope, t), d.loc)
            b = VarB(t, None)
            scope.declare(d.name, b, d.loc)
            return B.LocalVar(d.name, t, b, init, d.loc)
        if isinstance(d, A.ActionDecl):
            b = ActionB(d, full_name(frame.name, d), frame, scope=scope)
            scope.declare(d.name, b, d.loc)
            b.params = self.action_params(d, scope)
            return B.LocalAction(b)
        if isinstance(d, A.TableDecl):
            t = self.tables.check_table(d, full_name(frame.name, d), scope)
            self.env.declared.tables.append(t)
            for a in sorted(t.actions, key=lambda a: a.implicit):  # the emitter's order
                self.use(a.binding)
            b = InstB("table", ObjectT("table", d.name, d), t.name, "", d)
            scope.bind(d.name, b)  # after its properties: a table cannot name itself
            return B.LocalTable(t, b)
        if isinstance(d, A.InstanceDecl):
            return self._check_local_instance(d, frame, scope)
        if isinstance(d, A.ValueSetDecl):
            vs = self.declarations.check_value_set(d, full_name(frame.name, d), scope)
            b = InstB("value_set", vs.type, vs.name, "", d)
            scope.declare(d.name, b, d.loc)
            return B.LocalValueSet(vs, b)
        if isinstance(d, A.FunctionDecl):
            raise unsupported(d.loc, "functions declared inside controls/parsers")
        raise unsupported(d.loc, f"declaration {type(d).__name__} here")

    def _check_local_instance(self, d: A.InstanceDecl, frame: BlockFrame, scope: Scope) -> B.LocalInstance:
        t = self.types.resolve(d.type, scope)
        name = full_name(frame.name, d)
        if isinstance(t, ObjectT) and t.kind in ("control", "parser"):
            sub = self.check_instance(t.decl, name, d.args, scope)
            b = InstB(t.kind, t, name, "", d, block=sub, substituted=substitutable(frame.decl, d.name))
            scope.declare(d.name, b, d.loc)
            return B.LocalInstance(b)
        if isinstance(t, ObjectT) and t.kind == "extern":
            inst = self.declarations.check_extern_instance(t, name, d.args, d.loc, scope, d.annotations)
            b = InstB("extern", t, name, "", d)
            scope.declare(d.name, b, d.loc)
            return B.LocalInstance(b, extern=inst)
        raise P4CompileError(d.loc, f"cannot instantiate {t}")

    def _check_states(self, decl: A.ParserDecl, scope: Scope) -> tuple[B.ParserState, ...]:
        resolved = self.env.names.parser(decl)  # before checking (`resolve_names`)
        if resolved.error is not None:  # reported here, after the parser's locals, as before
            resolved.error.raise_()
        check_parser_terminates(resolved)
        states = []
        for s in decl.states:
            sscope = Scope(scope)
            # each statement's uses are checked before the next statement
            stmts = tuple(self.check_unit(self.stmts.check, st, sscope, Body("parser")) for st in s.stmts)
            tr = self.check_unit(self.parser_states.check_transition, s, sscope, resolved)
            states.append(B.ParserState(s.name, stmts, tr, s.loc))
        return tuple(states)

    def direct_instance(self, t: ObjectT, loc) -> InstB:
        """The instance behind a direct type invocation `Ctrl.apply(...)`.

        p4c (InstantiateDirectCalls) declares a fresh `@name("Ctrl") Ctrl() Ctrl_inst;` in
        the enclosing block for each such call, so each call site gets its own tables and
        externs, named under `<block>.Ctrl` (a second call here gets a `_1` suffix).
        """
        frame = self.walk.frame
        if frame is None:  # in an action or function
            raise P4CompileError(loc, f"{t.name}.apply: direct invocation is only allowed in a control or parser")
        if t.decl.ctor_params:
            raise P4CompileError(loc, f"{t.name}: direct invocation of a block with constructor parameters")
        name, k = t.name, 0
        while name in frame.direct_names:
            k += 1
            name = f"{t.name}_{k}"
        frame.direct_names.add(name)
        b = InstB(t.kind, t, f"{frame.name}.{name}" if frame.name else name, "", None)
        self.use(b)
        return b

    # -- actions and functions ---------------------------------------------------------------
    def action_params(self, d: A.ActionDecl, scope: Scope) -> tuple[B.Parameter, ...]:
        """The action data parameters of action `d` declared in `scope`, typed when it is
        declared (P4Info describes them); the others are typed with its body."""
        return tuple(self._parameter(p, scope) for p in d.params if p.direction == "")

    def _parameter(self, p: A.Param, scope: Scope) -> B.Parameter:
        t = self.types.resolve(p.type, scope)
        b = VarB(t, None, writable=p.direction not in ("in", ""), direction=p.direction)
        return B.Parameter(p.name, p.direction, t, b, p.loc)

    def _check_action_body(self, b: ActionB):
        scope = Scope(b.scope or self.global_scope)
        data = {p.name: p for p in b.params}
        params = []
        for p in b.decl.params:
            params.append(data.get(p.name) if p.direction == "" else self._parameter(p, scope))
            scope.declare(p.name, params[-1].binding, p.loc)
        b.params = tuple(params)
        outs = any(p.direction in ("out", "inout") for p in params)
        return self._check_callable_body(b.decl.body, scope, Body("action", None, outs))

    def _check_function(self, b: FuncB, tyenv: dict) -> B.FunctionBody:
        d = b.decl
        scope = tvar_scope(self.global_scope, {tp: tyenv[tp] for tp in d.type_params})
        ret = self.types.resolve(d.ret, scope)
        params = []
        for p in d.params:
            params.append(self._parameter(p, scope))
            scope.declare(p.name, params[-1].binding, p.loc)
        outs = any(p.direction in ("out", "inout") for p in params)
        body = self._check_callable_body(d.body, scope, Body("function", ret, outs))
        return B.FunctionBody(ret, tuple(params), body)

    def _check_callable_body(self, body: A.Block, scope: Scope, kind: Body):
        saved = self.walk.in_parser, self.walk.frame
        self.walk.in_parser, self.walk.frame = False, None
        try:
            return self.stmts.check_block(body, scope, kind)
        finally:
            self.walk.in_parser, self.walk.frame = saved


def function_key(b: FuncB, tyenv: dict | None) -> tuple:
    """The binding of `b`'s type parameters, as strings (one variant each)."""
    tp = b.decl.type_params
    return tuple(str(tyenv[p]) for p in tp) if tp else ()
