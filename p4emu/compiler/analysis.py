"""Syntactic analyses the generator needs to mimic p4c's lowering: which statements may
exit, which variables a body writes, and whether a sub-block's call sites allow p4c to
inline it by direct argument substitution."""

from __future__ import annotations

from p4emu.lang import ast as A


def expr_text(e: A.Expr) -> str:
    """p4c's text of a key / argument expression (`hdr.ipv4.$valid$` for isValid())."""
    if isinstance(e, A.Path):
        return e.name
    if isinstance(e, A.Member):
        return f"{expr_text(e.expr)}.{e.name}"
    if isinstance(e, A.Index):
        return f"{expr_text(e.expr)}[{expr_text(e.index)}]"
    if isinstance(e, A.Slice):
        return f"{expr_text(e.expr)}[{expr_text(e.hi)}:{expr_text(e.lo)}]"
    if isinstance(e, A.IntLit):
        return str(e.value)
    if isinstance(e, A.Call) and isinstance(e.func, A.Member) and e.func.name == "isValid":
        return f"{expr_text(e.func.expr)}.$valid$"
    if isinstance(e, A.Cast):
        return expr_text(e.expr)
    if isinstance(e, A.TypeExpr) and isinstance(e.type, A.TName):
        return e.type.name
    if isinstance(e, A.Binary):
        return f"{expr_text(e.left)} {e.op} {expr_text(e.right)}"
    return "expr"


def syntax_nodes(node):
    """Every syntax-tree node under `node` (a node, list or tuple), each once; resolved
    names, types and constants the checker attached are not followed."""
    todo, seen = [node], set()
    while todo:
        n = todo.pop()
        if isinstance(n, (list, tuple)):
            todo.extend(n)
        elif isinstance(n, A.Node) and id(n) not in seen:
            seen.add(id(n))
            yield n
            todo.extend(v for k, v in vars(n).items()
                        if k not in ("ref", "ty", "const", "loc") and isinstance(v, (A.Node, list, tuple)))


def apply_calls(node, inst: str) -> list:
    """All `inst.apply(...)` calls in a syntax tree."""
    return [n for n in syntax_nodes(node)
            if isinstance(n, A.Call) and isinstance(n.func, A.Member) and n.func.name == "apply"
            and isinstance(n.func.expr, A.Path) and n.func.expr.name == inst]


def substitutable(decl, inst: str) -> bool:
    """p4c's condition for inlining `inst` by direct argument substitution."""
    if decl is None:
        return True
    calls = apply_calls([getattr(decl, "body", None), getattr(decl, "states", []),
                         decl.locals], inst)
    sigs = {tuple(expr_text(a.value) if a.value is not None else "_" for a in c.args) for c in calls}
    if len(sigs) > 1:
        return False
    for sig in sigs:
        for i, x in enumerate(sig):
            for y in sig[i + 1:]:
                if x == y or y.startswith(x + ".") or x.startswith(y + ".") or \
                        y.startswith(x + "[") or x.startswith(y + "["):
                    return False
    return True


def child_statements(node):
    """The statement trees directly inside a statement (blocks, branches, loops, cases)."""
    for attr in ("stmts", "then", "other", "body", "cases", "init", "update"):
        sub = getattr(node, attr, None)
        for x in sub if isinstance(sub, list) else [sub]:
            if isinstance(x, A.SwitchCase):
                x = x.body
            if isinstance(x, A.Node):
                yield x


def may_exit(node) -> bool:
    """Can executing this statement tree raise `exit` (directly or through a call)?"""
    if isinstance(node, A.Exit):
        return True
    if isinstance(node, A.CallStmt):
        return True  # actions, tables and sub-controls may exit
    if isinstance(node, A.Assign):
        return has_call(node.rhs)
    if any(may_exit(x) for x in child_statements(node)):
        return True
    if isinstance(node, A.If | A.Switch):
        return has_call(node.cond if isinstance(node, A.If) else node.expr)
    return False


def has_call(e) -> bool:
    if isinstance(e, A.Call):
        return True
    for attr in ("expr", "left", "right", "cond", "then", "other", "index"):
        sub = getattr(e, attr, None)
        if isinstance(sub, A.Expr) and has_call(sub):
            return True
    return any(has_call(x) for x in getattr(e, "items", []) or [])


def table_apply_in(e) -> A.Call | None:
    """The first `x.apply()` call inside an expression, or None."""
    if isinstance(e, A.Call):
        if isinstance(e.func, A.Member) and e.func.name == "apply":
            return e
        for a in e.args:
            found = table_apply_in(a.value) if a.value is not None else None
            if found is not None:
                return found
    for attr in ("expr", "left", "right", "cond", "then", "other", "index", "func"):
        sub = getattr(e, attr, None)
        if isinstance(sub, A.Expr):
            found = table_apply_in(sub)
            if found is not None:
                return found
    for x in getattr(e, "items", []) or []:
        found = table_apply_in(x)
        if found is not None:
            return found
    return None


def root_name(e) -> str | None:
    while isinstance(e, (A.Member, A.Index, A.Slice)):
        e = e.expr
    return e.name if isinstance(e, A.Path) else None


def writes(node, name: str) -> bool:
    """Does a statement tree assign to (or change the validity of) variable `name`?"""
    if isinstance(node, A.Assign):
        return root_name(node.lhs) == name
    if isinstance(node, A.CallStmt):
        f = node.call.func
        if isinstance(f, A.Member) and f.name in ("setValid", "setInvalid", "push_front", "pop_front"):
            return root_name(f.expr) == name
        # passing it as an argument may write it (out/inout)
        return any(a.value is not None and root_name(a.value) == name for a in node.call.args)
    if any(writes(x, name) for x in child_statements(node)):
        return True
    return False


def apply_continuations(body: A.Block) -> dict[int, tuple]:
    """id of each `t.apply();` statement call in a control body -> where control goes
    after it. p4c's BMv2 back end gives a table one node in the control-flow graph, so a
    table applied at several places is fine only if every place continues at the same
    point (CFG::checkMergeable), as in `if (c) { t.apply(); } else { t.apply(); }`."""
    out: dict[int, tuple] = {}

    def walk(s, cont: tuple) -> None:
        if isinstance(s, A.Block):
            for i, inner in enumerate(s.stmts):
                walk(inner, cont if i == len(s.stmts) - 1 else ("after", id(inner)))
        elif isinstance(s, A.If):
            walk(s.then, cont)
            if s.other is not None:
                walk(s.other, cont)
        elif isinstance(s, A.Switch):
            for case in s.cases:
                if case.body is not None:
                    walk(case.body, cont)
        elif isinstance(s, A.For):
            walk(s.body, ("loop", id(s)))
        elif isinstance(s, A.CallStmt):
            f = s.call.func
            if isinstance(f, A.Member) and f.name == "apply" and not s.call.args:
                out[id(s.call)] = cont

    walk(body, ("end",))
    return out
