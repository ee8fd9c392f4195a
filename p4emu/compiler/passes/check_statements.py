"""The statement checker (`StatementChecker`, a pass of the `ProgramChecker`): `check` turns
an AST statement into a typed statement (`p4emu.ir.statements`), dispatching on the node
class through `STMT_CHECKERS`. It owns local scoping (a block's declarations go to a scope
of its own) and the statement-level errors: assignment targets and types, conditions,
switch labels, where `switch`, `exit`, `return`, `break` and `continue` may appear.

`Body` says what body the statements are in (an action, function, parser state or
control) and the loops around them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace as rebuild

from p4emu.compiler.analysis import expr_text, has_call
from p4emu.compiler.generated import CompilePass
from p4emu.compiler.passes.conversions import convert
from p4emu.compiler.passes.folding import fold
from p4emu.compiler.scope import ActionB, ConstB, Scope, VarB
from p4emu.compiler.values import AggConst, is_compound
from p4emu.ir import expressions as I
from p4emu.ir import statements as S
from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError, unsupported
from p4emu.lang.types import VOID, BoolT, ObjectT, StackT, StructT, TupleT, Type, VarbitT


@dataclass
class Body:
    kind: str  # "action", "function", "parser", "control" or ""
    ret_type: Type | None = None
    epilogue: bool = False  # out/inout results are returned (a plain `return` returns them)
    loops: int = 0  # loops around the statement


class StatementChecker(CompilePass):
    """AST statements -> typed statements (`check`), in their scopes."""

    USES = ("types", "exprs", "calls", "arguments")

    def check(self, s: A.Stmt, scope: Scope, body: Body) -> S.Stmt:
        check = STMT_CHECKERS.get(type(s))
        if check is None:
            raise unsupported(s.loc, f"statement {type(s).__name__}")
        return check(self, s, scope, body)

    def check_block(self, b: A.Block, scope: Scope, body: Body) -> S.Block:
        inner = Scope(scope)
        return S.Block(b.loc, tuple(self.check(s, inner, body) for s in b.stmts))

    def _check_empty(self, s, scope, body) -> S.Stmt:
        return S.Empty(s.loc)

    def _check_var_decl(self, s: A.VarDecl, scope: Scope, body) -> S.Stmt:
        t = self.types.resolve(s.type, scope)
        if s.is_const:
            v = convert(self.exprs.check(s.init, scope, t), t, s.init.loc)
            if fold(v).const is not None:
                scope.declare(s.name, ConstB(t, fold(v).const), s.loc)
                return S.Empty(s.loc)
            b = VarB(t, None, writable=False)
            scope.declare(s.name, b, s.loc)
            return S.ConstDecl(s.loc, s.name, t, b, v)
        init = None
        if s.init is not None:
            init = check_initial(t, self.exprs.check(s.init, scope, t), s.init.loc)
        b = VarB(t, None)
        scope.declare(s.name, b, s.loc)
        return S.VarDecl(s.loc, s.name, t, b, init)

    def _check_instance_decl(self, s, scope, body) -> S.Stmt:
        raise P4CompileError(s.loc, "instantiations are not allowed inside blocks")

    def _check_assign(self, s: A.Assign, scope: Scope, body) -> S.Stmt:
        if isinstance(s.lhs, A.Slice):
            target = self.arguments.check_lvalue(s.lhs, scope)
            value = convert(self.exprs.check(s.rhs, scope, target.type), target.type, s.rhs.loc)
            return S.Assign(s.loc, target, value)
        if isinstance(s.lhs, A.DontCare):
            return S.Evaluate(s.loc, self.exprs.check(s.rhs, scope))
        index, binding = None, None
        e = s.lhs
        while isinstance(e, (A.Member, A.Slice)) or (isinstance(e, A.Index) and isinstance(e.index, A.IntLit)):
            e = e.expr
        if isinstance(e, A.Index) and (has_call(s.rhs) or has_call(e.index)):
            # p4c evaluates the left side, its run-time stack index included, once and
            # before the right side (SideEffectOrdering): `h[f(i)].x |= v` calls f once,
            # and in `h[i].x = g(i)` g's change of i does not move the target (p4c
            # testdata opassign2-bmv2.p4, gauntlet_index_7-bmv2.p4). The target reads the
            # index from a variable while it is checked
            index = self.exprs.check(e.index, scope)
            if fold(index).const is None:
                binding = VarB(index.type, None, writable=False)
                scope = Scope(scope)
                name = f"ix{id(e)}$"  # no P4 name can clash with it
                scope.bind(name, binding)
                saved, e.index = e.index, A.Path(e.index.loc, name)
            else:
                index = None
        try:
            target = self.arguments.check_lvalue(s.lhs, scope)
            value = self.exprs.check(s.rhs, scope, target.type)
        finally:
            if binding is not None:
                e.index = saved
        return S.Assign(s.loc, target, check_assignment(target.type, value, s.rhs.loc), index, binding)

    def _check_call_statement(self, s: A.CallStmt, scope, body) -> S.Stmt:
        call = self.calls.check_call(s.call, scope, statement=True)
        if isinstance(call, I.Call):
            return S.CallStatement(s.loc, call)
        return S.Evaluate(s.loc, call)  # a header query or a cast: evaluated for nothing

    def _check_if(self, s: A.If, scope, body) -> S.Stmt:
        c = self.exprs.check(s.cond, scope)
        if not isinstance(c.type, BoolT):
            raise P4CompileError(s.cond.loc, f"if: condition must be bool, got {c.type}")
        then = self.check(s.then, Scope(scope), body)
        other = self.check(s.other, Scope(scope), body) if s.other is not None else None
        return S.If(s.loc, c, then, other)

    def _check_switch(self, s: A.Switch, scope, body) -> S.Stmt:
        if body.kind in ("action", "parser"):
            raise P4CompileError(s.loc, f"switch statements are not allowed in {body.kind}s")
        seen_labels: set[str] = set()
        for case in s.cases:
            for label in case.labels:
                text = "default" if isinstance(label, A.DefaultKey) else expr_text(label)
                if text in seen_labels:
                    raise P4CompileError(label.loc, f"duplicate switch label {text}")
                seen_labels.add(text)
        v = self.exprs.check(s.expr, scope)
        t = v.type
        is_action_run = isinstance(t, ObjectT) and t.kind == "action_run"
        cases = []
        for case in s.cases:
            labels: list[I.Expr | None] = []
            for label in case.labels:
                if isinstance(label, A.DefaultKey):
                    labels.append(None)
                elif is_action_run:
                    labels.append(self._action_label(label, t, scope))
                else:
                    c = self.exprs.check(label, scope, t)
                    if fold(c).const is None:
                        raise P4CompileError(label.loc, "expected a compile-time constant")
                    labels.append(convert(c, t, label.loc))
            block = self.check_block(case.body, scope, body) if case.body is not None else None
            cases.append(S.SwitchCase(tuple(labels), block))
        return S.Switch(s.loc, v, tuple(cases))

    def _action_label(self, label: A.Expr, ty, scope: Scope) -> I.Expr:
        if not isinstance(label, A.Path):
            raise P4CompileError(label.loc, "switch label must be an action name")
        b = scope.lookup(label.name)
        if not isinstance(b, ActionB):
            raise P4CompileError(label.loc, f"{label.name}: not an action")
        table = getattr(ty.decl, "full_name", None)  # the table applied (an InstB)
        listed = next((t.actions for t in self.env.declared.tables if t.name == table), None)
        if listed is not None and b.full_name not in {a.name for a in listed}:
            # p4c (TypeInference): a label must be one of the applied table's actions
            raise P4CompileError(label.loc, f"{label.name} is not a legal label (action name): "
                                            f"not an action of table {table}")
        return I.CallableRef(VOID, label.loc, label.name, b)

    def _check_for(self, s: A.For, scope: Scope, body: Body) -> S.Stmt:
        inner = Scope(scope)
        if s.var is not None:
            t = self.types.resolve(s.var.type, inner)
            it = s.iterable
            iterable = low = high = None
            if isinstance(it, A.Range):
                low = convert(self.exprs.check(it.low, inner, t), t, it.loc)
                high = convert(self.exprs.check(it.high, inner, t), t, it.loc)
            else:
                iterable = self.exprs.check(it, inner)
                if not isinstance(iterable.type, (StackT, TupleT)):
                    raise unsupported(it.loc, f"for-in over a value of type {iterable.type}")
            b = VarB(t, None)
            inner.bind(s.var.name, b)
            return S.ForIn(s.loc, s.var.name, b, iterable, low, high, self._loop_body(s.body, inner, body))
        init = tuple(self.check(st, inner, body) for st in s.init)
        update = tuple(self.check(st, inner, body) for st in s.update)
        cond = None
        if s.cond is not None:
            cond = self.exprs.check(s.cond, inner)
            if not isinstance(cond.type, BoolT):
                raise P4CompileError(s.cond.loc, f"for: condition must be bool, got {cond.type}")
        return S.For(s.loc, init, cond, update, self._loop_body(s.body, inner, body))

    def _loop_body(self, s: A.Stmt, scope: Scope, body: Body) -> S.Stmt:
        body.loops += 1
        try:
            return self.check(s, Scope(scope), body)
        finally:
            body.loops -= 1

    def _check_break(self, s, scope, body) -> S.Stmt:
        if not body.loops:
            raise P4CompileError(s.loc, "break outside a loop")
        return S.Break(s.loc)

    def _check_continue(self, s, scope, body) -> S.Stmt:
        if not body.loops:
            raise P4CompileError(s.loc, "continue outside a loop")
        return S.Continue(s.loc)

    def _check_exit(self, s, scope, body) -> S.Stmt:
        if body.kind in ("function", "parser"):
            raise P4CompileError(s.loc, f"exit statements are not allowed in {body.kind}s")
        return S.Exit(s.loc)

    def _check_return(self, s: A.Return, scope, body) -> S.Stmt:
        if body.kind == "parser":
            raise P4CompileError(s.loc, "return statements are not allowed in parsers")
        ret_type = body.ret_type
        if s.value is not None:
            if ret_type is None or isinstance(ret_type, type(VOID)):
                raise P4CompileError(s.loc, "return with a value outside a function")
            return S.Return(s.loc, check_initial(ret_type, self.exprs.check(s.value, scope, ret_type), s.loc))
        if not body.epilogue and ret_type is not None and not isinstance(ret_type, type(VOID)):
            raise P4CompileError(s.loc, "return without a value in a function returning a value")
        return S.Return(s.loc, None)


# what a checked value may initialise or be assigned to: functions of the value and the
# type alone, which the block checker uses too (the initial values of control variables)
def check_initial(t: Type, v: I.Expr, loc) -> I.Expr:
    """`v` as the initial value of a variable or the value returned, of type `t`."""
    return check_assignment(t, v, loc) if is_compound(t) else convert(v, t, loc)


def check_assignment(t: Type, v: I.Expr, loc) -> I.Expr:
    """`v` as the value of a `t`: converted when scalar; a list or struct expression is
    assigned field by field (each converted), a header may take `{}` (invalid)."""
    if isinstance(t, StructT):
        if is_built(v) and not (isinstance(v.type, StructT) and built_kind(v) is I.StructExpr):
            return _check_fieldwise(t, v, loc)
        if isinstance(v.type, StructT) and v.type is t:
            return v
        if isinstance(v.type, TupleT) and isinstance(v.const, AggConst) and not v.const.items:
            if t.kind == "header":
                return v
        raise P4CompileError(loc, f"type mismatch: cannot assign {v.type} to {t}")
    if isinstance(t, StackT):
        if isinstance(v.type, StackT) and v.type.elem is t.elem and v.type.size == t.size:
            return v
        raise P4CompileError(loc, f"type mismatch: cannot assign {v.type} to {t}")
    if isinstance(t, TupleT):
        if not isinstance(v.type, TupleT) or len(v.type.items) != len(t.items):
            raise P4CompileError(loc, f"type mismatch: cannot assign {v.type} to {t}")
        return v
    if isinstance(t, VarbitT):
        if not isinstance(v.type, VarbitT):
            raise P4CompileError(loc, f"type mismatch: cannot assign {v.type} to {t}")
        return v
    return convert(v, t, loc)


def _check_fieldwise(t: StructT, v: I.Expr, loc) -> I.Expr:
    """List or struct expression `v` (cast or not) assigned to `t` field by field."""
    if isinstance(v, I.Cast):
        return rebuild(v, operand=_check_fieldwise(t, v.operand, loc))
    parts = v.items if isinstance(v, I.ListExpr) else v.values
    if len(parts) != len(t.fields):
        raise P4CompileError(loc, f"{t.name} has {len(t.fields)} fields, got {len(parts)}")
    parts = tuple(check_assignment(ft, x, loc) for (_, ft), x in zip(t.fields, parts, strict=True))
    return rebuild(v, items=parts) if isinstance(v, I.ListExpr) else rebuild(v, values=parts)


def built_kind(v: I.Expr) -> type | None:
    """ListExpr or StructExpr when `v` is a list or struct expression (possibly cast to a
    struct): its parts are assigned one by one."""
    v = fold(v)
    while isinstance(v, I.Cast) and isinstance(v.type, StructT) and isinstance(v.operand.type, TupleT):
        v = v.operand
    return type(v) if type(v) in (I.ListExpr, I.StructExpr) else None


def is_built(v: I.Expr) -> bool:
    return built_kind(v) is not None


# the checker of each statement node class, called as check(the StatementChecker, s,
# scope, body)
STMT_CHECKERS: dict[type, Callable[..., S.Stmt]] = {
    A.Block: StatementChecker.check_block,
    A.Empty: StatementChecker._check_empty,
    A.VarDecl: StatementChecker._check_var_decl,
    A.InstanceDecl: StatementChecker._check_instance_decl,
    A.Assign: StatementChecker._check_assign,
    A.CallStmt: StatementChecker._check_call_statement,
    A.If: StatementChecker._check_if,
    A.Switch: StatementChecker._check_switch,
    A.For: StatementChecker._check_for,
    A.Break: StatementChecker._check_break,
    A.Continue: StatementChecker._check_continue,
    A.Exit: StatementChecker._check_exit,
    A.Return: StatementChecker._check_return,
}
