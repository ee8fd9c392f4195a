"""Statements, and the local variable and instance declarations that stand among them."""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.parser.expressions import ExprParser

COMPOUND_ASSIGN = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", "|+|=", "|-|="}


class StmtParser(ExprParser):
    def block(self) -> A.Block:
        annos = self.annotations()
        t = self.expect("{")
        stmts = []
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.error("expected '}'")
            stmts.append(self.statement())
        self.i += 1
        return A.Block(t.loc, stmts, annos)

    def statement(self) -> A.Stmt:
        annos = self.annotations()
        t = self.tok
        if t.text == "{" and t.kind == "punct":
            b = self.block()
            b.annotations = annos
            return b
        if t.kind == "kw":
            if t.text == "if":
                self.i += 1
                self.expect("(")
                c = self.expression()
                self.expect(")")
                then = self.statement()
                other = self.statement() if self.accept("else") else None
                return A.If(t.loc, c, then, other)
            if t.text == "switch":
                return self._switch()
            if t.text == "exit":
                self.i += 1
                self.expect(";")
                return A.Exit(t.loc)
            if t.text in ("break", "continue"):
                self.i += 1
                self.expect(";")
                return A.Break(t.loc) if t.text == "break" else A.Continue(t.loc)
            if t.text == "for":
                return self._for()
            if t.text == "return":
                self.i += 1
                value = None if self.at(";") else self.expression()
                self.expect(";")
                return A.Return(t.loc, value)
            if t.text == "const":
                d = self.var_decl(is_const=True)
                d.annotations = annos
                return d
        if t.text == ";":
            self.i += 1
            return A.Empty(t.loc)
        if self._at_declaration():
            d = self.var_or_instance()
            d.annotations = annos
            return d
        lhs = self.expression()
        if self.accept("="):
            rhs = self.expression()
            self.expect(";")
            return A.Assign(t.loc, lhs, rhs)
        op = self._compound_op()
        if op is not None:
            rhs = self.expression()
            self.expect(";")
            return A.Assign(t.loc, lhs, A.Binary(t.loc, op, lhs, rhs))
        if not isinstance(lhs, A.Call):
            self.error("expected an assignment or a method call")
        self.expect(";")
        return A.CallStmt(t.loc, lhs)

    def _compound_op(self) -> str | None:
        """`op=` of a compound assignment (consumed), or None. `>>=` lexes as `>` `>=`."""
        t = self.tok
        if t.kind == "punct" and t.text in COMPOUND_ASSIGN:
            self.i += 1
            return t.text[:-1]
        nxt = self.peek()
        if t.text == ">" and nxt.text == ">=" and nxt.loc.line == t.loc.line and nxt.loc.col == t.loc.col + 1:
            self.i += 2
            return ">>"
        return None

    def _simple_statement(self) -> A.Stmt:
        """Assignment, call or declaration without the trailing ';' (for-loop clauses)."""
        t = self.tok
        if self._at_declaration():
            ty = self.type_ref()
            n = self.ident()
            init = self.expression() if self.accept("=") else None
            return A.VarDecl(n.loc, n.text, ty, init)
        lhs = self.expression()
        if self.accept("="):
            return A.Assign(t.loc, lhs, self.expression())
        op = self._compound_op()
        if op is not None:
            return A.Assign(t.loc, lhs, A.Binary(t.loc, op, lhs, self.expression()))
        if not isinstance(lhs, A.Call):
            self.error("expected an assignment or a method call")
        return A.CallStmt(t.loc, lhs)

    def _for(self) -> A.For:
        t = self.expect("for")
        self.expect("(")
        # for (T x in e)
        save = self.i
        if self.at_type_start():
            ty = self.type_ref()
            if self.tok.kind == "id" and self.peek().kind == "kw" and self.peek().text == "in":
                n = self.ident()
                self.i += 1
                it = self.keyset_expr()
                self.expect(")")
                body = self.statement()
                var = A.VarDecl(n.loc, n.text, ty, None)
                return A.For(t.loc, [], None, [], body, var, it)
            self.i = save
        init = []
        while not self.at(";"):
            init.append(self._simple_statement())
            if not self.accept(","):
                break
        self.expect(";")
        cond = None if self.at(";") else self.expression()
        self.expect(";")
        update = []
        while not self.at(")"):
            update.append(self._simple_statement())
            if not self.accept(","):
                break
        self.expect(")")
        body = self.statement()
        return A.For(t.loc, init, cond, update, body)

    def _at_declaration(self) -> bool:
        if not self.at_type_start():
            return False
        # T x ... / T<...> x / T(args) x / T[n] x ; but not T.member(...) (e.g. enum use)
        k = 1 if self.tok.text != "." else 2
        nxt = self.peek(k)
        if self.tok.kind == "kw":
            return nxt.text != "."
        # a type name followed by a name, `<`, `(` or `[` starts a declaration; otherwise
        # the name is a variable that shadows the type (p4c resolves it by scope too)
        return nxt.kind == "id" or nxt.text in ("<", "(", "[")

    def _switch(self) -> A.Switch:
        t = self.expect("switch")
        self.expect("(")
        e = self.expression()
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.accept("}"):
            ct = self.tok
            if self.accept("default"):
                label: A.Expr = A.DefaultKey(ct.loc)
            else:
                label = self.expression()
            self.expect(":")
            body = self.block() if self.at("{") else None
            cases.append(A.SwitchCase(ct.loc, [label], body))
        return A.Switch(t.loc, e, cases)

    def var_decl(self, is_const: bool) -> A.VarDecl:
        if is_const:
            self.expect("const")
        ty = self.type_ref()
        n = self.ident()
        init = self.expression() if self.accept("=") else None
        if is_const and init is None:
            self.error("expected '=' in constant declaration")
        self.expect(";")
        return A.VarDecl(n.loc, n.text, ty, init, is_const)

    def var_or_instance(self) -> A.Decl:
        ty = self.type_ref()
        if self.at("("):
            args = self.arguments()
            n = self.ident()
            if self.at("{"):
                raise P4CompileError(self.tok.loc, "unsupported: abstract method implementations in instantiations")
            self.expect(";")
            return A.InstanceDecl(n.loc, n.text, ty, args)
        n = self.ident()
        init = self.expression() if self.accept("=") else None
        self.expect(";")
        return A.VarDecl(n.loc, n.text, ty, init)
