"""Recursive-descent parser for P4_16: statements and declarations (expressions and
types are in `parser_base`)."""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.lexer import Token
from p4emu.lang.parser_base import COMPOUND_ASSIGN, ExprParser


class Parser(ExprParser):
    # -- statements --------------------------------------------------------------------
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

    # -- declarations ------------------------------------------------------------------
    def program(self) -> A.Program:
        decls = []
        start = self.tok.loc
        while self.tok.kind != "eof":
            if self.accept(";"):
                continue
            d = self.declaration()
            # `typedef struct S {...} T;` declares S before the typedef that names it
            inner = getattr(d, "inner_decl", None)
            if inner is not None:
                decls.append(inner)
            decls.append(d)
        return A.Program(start, decls)

    def declaration(self) -> A.Decl:
        annos = self.annotations()
        t = self.tok
        d: A.Decl
        if t.kind == "kw" and t.text == "const":
            d = self.var_decl(True)
        elif t.kind == "kw" and t.text in ("header", "struct", "header_union"):
            d = self._struct_like()
        elif t.kind == "kw" and t.text == "enum":
            d = self._enum()
        elif t.kind == "kw" and t.text == "typedef" or (t.text == "type" and t.kind == "id" and self.peek().text not in ("(", "=")):
            self.i += 1
            inner = None
            if self.tok.kind == "kw" and self.tok.text in ("header", "struct", "header_union", "enum"):
                inner = self._struct_like() if self.tok.text != "enum" else self._enum()
                ty = A.TName(inner.loc, inner.name)
            else:
                ty = self.type_ref()
            n = self.ident()
            self.expect(";")
            d = A.TypedefDecl(n.loc, n.text, ty, t.text == "type")
            d.inner_decl = inner
            self.type_names.add(n.text)
        elif t.kind == "kw" and t.text in ("error", "match_kind") and self.peek().text == "{":
            self.i += 2
            members = [self.member_name()]
            while self.accept(","):
                if self.at("}"):
                    break
                members.append(self.member_name())
            self.expect("}")
            cls = A.ErrorDecl if t.text == "error" else A.MatchKindDecl
            d = cls(t.loc, t.text, members)
        elif t.kind == "kw" and t.text == "extern":
            d = self._extern()
        elif t.kind == "kw" and t.text in ("parser", "control", "package"):
            d = self._block_decl()
        elif t.kind == "kw" and t.text == "action":
            d = self.action()
        elif self.at_type_start() or (t.kind == "id" and self.peek().kind == "id"
                                      and self.peek(2).text == "<"):
            d = self._function_or_instance()
        else:
            self.error("expected a declaration")
        d.annotations = annos + d.annotations
        return d

    def _struct_like(self) -> A.HeaderDecl:
        kind = self.tok.text
        self.i += 1
        n = self.ident()
        self.type_names.add(n.text)
        tparams = self.type_params()
        self.scoped_types.append(set(tparams))
        self.expect("{")
        fields = []
        while not self.accept("}"):
            annos = self.annotations()
            ty = self.type_ref()
            fn = self.ident()
            self.expect(";")
            f = A.FieldDecl(fn.loc, fn.text, ty)
            f.annotations = annos
            fields.append(f)
        self.scoped_types.pop()
        return A.HeaderDecl(n.loc, n.text, kind, fields, tparams)

    def _enum(self) -> A.EnumDecl:
        self.expect("enum")
        underlying = None
        if self.tok.text in ("bit", "int"):
            underlying = self.type_ref()
        n = self.ident()
        self.type_names.add(n.text)
        self.expect("{")
        members = []
        while not self.accept("}"):
            annos = self.annotations()
            del annos
            m = self.member_name()
            val = self.expression() if self.accept("=") else None
            members.append((m, val))
            if not self.accept(","):
                self.expect("}")
                break
        return A.EnumDecl(n.loc, n.text, underlying, members)

    def _extern(self) -> A.Decl:
        self.expect("extern")
        if self.tok.kind == "id" and self.peek().text == ";":  # forward: `extern Name;`
            n = self.ident()
            self.expect(";")
            self.type_names.add(n.text)
            d = A.ExternDecl(n.loc, n.text, [], [])
            d.forward = True
            return d
        if self.tok.kind == "id" and self.peek().text in ("{", "<") and self.is_type_name(self.tok.text) and self._extern_object_ahead():
            n = self.ident()
            tparams = self.type_params()
            self.scoped_types.append(set(tparams))
            self.expect("{")
            methods = []
            while not self.accept("}"):
                annos = self.annotations()
                abstract = False
                if self.tok.text == "abstract":
                    abstract = True
                    self.i += 1
                if self.tok.kind == "id" and self.tok.text == n.text and self.peek().text == "(":
                    mt = self.ident()
                    params = self.params()
                    m = A.MethodDecl(mt.loc, mt.text, None, [], params)
                else:
                    ret = self.type_ref()
                    mt = self.ident()
                    mtp = self.type_params()
                    self.scoped_types.append(set(mtp))
                    params = self.params()
                    self.scoped_types.pop()
                    m = A.MethodDecl(mt.loc, mt.text, ret, mtp, params, abstract)
                m.annotations = annos
                self.expect(";")
                methods.append(m)
            self.scoped_types.pop()
            return A.ExternDecl(n.loc, n.text, tparams, methods)
        annos = self.annotations()
        # extern function: extern T name<...>(params);  (type params may be used in T)
        save = self.i
        ret_tok = self.tok
        depth = 0
        while not (self.tok.kind == "id" and self.peek().text in ("(", "<") and depth == 0
                   and not self.is_type_name(self.tok.text)):
            if self.tok.kind == "eof" or self.tok.text == ";":
                self.error("expected an extern function declaration", ret_tok)
            depth += self.tok.text == "<"
            depth -= self.tok.text == ">"
            self.i += 1
        name_idx = self.i
        self.i = name_idx + 1
        tparams = self.type_params()
        self.i = save
        self.scoped_types.append(set(tparams))
        ret = self.type_ref()
        n = self.ident()
        self.type_params()
        params = self.params()
        self.scoped_types.pop()
        self.expect(";")
        d = A.ExternFuncDecl(n.loc, n.text, ret, tparams, params)
        d.annotations = annos
        return d

    def _extern_object_ahead(self) -> bool:
        k = self.i + 1
        if self.toks[k].text == "<":
            depth = 0
            while k < len(self.toks):
                depth += self.toks[k].text == "<"
                depth -= self.toks[k].text == ">"
                k += 1
                if depth == 0:
                    break
        return self.toks[k].text == "{"

    def _block_decl(self) -> A.Decl:
        kind = self.tok.text
        self.i += 1
        n = self.ident()
        self.type_names.add(n.text)
        tparams = self.type_params()
        self.scoped_types.append(set(tparams))
        params = self.params()
        if self.accept(";"):
            self.scoped_types.pop()
            return A.BlockTypeDecl(n.loc, n.text, kind, tparams, params)
        if kind == "package":
            self.error("expected ';'")
        ctor = self.params() if self.at("(") else []
        self.expect("{")
        local_decls: list[A.Decl] = []
        if kind == "parser":
            states = []
            while not self.accept("}"):
                annos = self.annotations()
                if self.at("state"):
                    s = self._state()
                    s.annotations = annos
                    states.append(s)
                else:
                    d = self._local_decl()
                    d.annotations = annos + d.annotations
                    local_decls.append(d)
            self.scoped_types.pop()
            return A.ParserDecl(n.loc, n.text, tparams, params, ctor, local_decls, states)
        body = None
        while not self.accept("}"):
            annos = self.annotations()
            if self.at("apply"):
                self.i += 1
                body = self.block()
            else:
                d = self._local_decl()
                d.annotations = annos + d.annotations
                local_decls.append(d)
        self.scoped_types.pop()
        if body is None:
            raise P4CompileError(n.loc, f"control {n.text} has no apply block")
        return A.ControlDecl(n.loc, n.text, tparams, params, ctor, local_decls, body)

    def _local_decl(self) -> A.Decl:
        t = self.tok
        if t.kind == "kw" and t.text == "const":
            return self.var_decl(True)
        if t.kind == "kw" and t.text == "action":
            return self.action()
        if t.kind == "kw" and t.text == "table":
            return self._table()
        if t.kind == "kw" and t.text == "value_set":
            self.i += 1
            self.expect("<")
            ty = self.type_ref()
            self.expect(">")
            self.expect("(")
            size = self.expression()
            self.expect(")")
            n = self.ident()
            self.expect(";")
            return A.ValueSetDecl(n.loc, n.text, ty, size)
        if self.at_type_start():
            return self.var_or_instance()
        self.error("expected a declaration")

    def action(self) -> A.ActionDecl:
        self.expect("action")
        n = self.ident()
        params = self.params()
        body = self.block()
        return A.ActionDecl(n.loc, n.text, params, body)

    def _function_or_instance(self) -> A.Decl:
        # `T f<T>(...)`: the function's type parameters are in scope for its return type
        early = set()
        if self.peek().kind == "id" and self.peek(2).text == "<":
            k = self.i + 3
            while k < len(self.toks) and self.toks[k].text != ">":
                if self.toks[k].kind == "id":
                    early.add(self.toks[k].text)
                k += 1
        self.scoped_types.append(early)
        try:
            return self._function_or_instance_inner()
        finally:
            self.scoped_types.pop()

    def _function_or_instance_inner(self) -> A.Decl:
        ty = self.type_ref()
        if self.at("("):
            args = self.arguments()
            n = self.ident()
            self.expect(";")
            return A.InstanceDecl(n.loc, n.text, ty, args)
        n = self.ident()
        tparams = self.type_params()
        self.scoped_types.append(set(tparams))
        params = self.params()
        body = self.block()
        self.scoped_types.pop()
        return A.FunctionDecl(n.loc, n.text, ty, tparams, params, body)

    def _state(self) -> A.StateDecl:
        self.expect("state")
        n = self.ident()
        self.expect("{")
        stmts = []
        transition = None
        while not self.accept("}"):
            if self.at("transition"):
                tt = self.expect("transition")
                if self.at("select"):
                    self.i += 1
                    self.expect("(")
                    exprs = []  # `select()`: only `default`/`_` cases can match
                    if not self.at(")"):
                        exprs.append(self.expression())
                        while self.accept(","):
                            exprs.append(self.expression())
                    self.expect(")")
                    self.expect("{")
                    cases = []
                    while not self.accept("}"):
                        ct = self.tok
                        keys = self.keyset_list()
                        self.expect(":")
                        target = self.name()
                        self.expect(";")
                        cases.append(A.SelectCase(ct.loc, keys, target))
                    transition = A.Transition(tt.loc, exprs, None, cases)
                    self.accept(";")
                else:
                    target = self.name()
                    self.expect(";")
                    transition = A.Transition(tt.loc, None, target)
                if not self.at("}"):
                    self.error("expected '}' after transition")
            else:
                stmts.append(self.statement())
        return A.StateDecl(n.loc, n.text, stmts, transition)

    def _table(self) -> A.TableDecl:
        self.expect("table")
        n = self.ident()
        self.expect("{")
        props = []
        while not self.accept("}"):
            annos = self.annotations()
            is_const = bool(self.accept("const"))
            pt = self.tok
            pname = self.member_name()
            if pname == "key":
                self.expect("=")
                self.expect("{")
                keys = []
                while not self.accept("}"):
                    e = self.expression()
                    self.expect(":")
                    mk = self.name()
                    kannos = self.annotations()
                    self.expect(";")
                    keys.append(A.KeyElement(e.loc, e, mk, kannos))
                props.append(A.TableProperty(pt.loc, "key", keys, is_const, annos))
            elif pname == "actions":
                self.expect("=")
                self.expect("{")
                refs = []
                while not self.accept("}"):
                    refs.append(self._action_ref())
                    self.expect(";")
                props.append(A.TableProperty(pt.loc, "actions", refs, is_const, annos))
            elif pname == "entries":
                self.expect("=")
                self.expect("{")
                entries = []
                while not self.accept("}"):
                    eannos = self.annotations()
                    et = self.tok
                    # P4 1.2.4 per-entry `const` (in a non-const list): BMv2 locks every
                    # table loaded with entries anyway, so it changes nothing here
                    self.accept("const")
                    prio = None
                    if self.tok.text == "priority" and self.peek().text == "=":
                        self.i += 2
                        prio = self.expression()
                        self.expect(":")
                    keys = self.keyset_list()
                    self.expect(":")
                    ref = self._action_ref()
                    eannos = eannos + self.annotations()  # p4c's place: after the action
                    self.expect(";")
                    entries.append(A.EntrySyntax(et.loc, keys, ref, eannos, prio))
                props.append(A.TableProperty(pt.loc, "entries", entries, is_const, annos))
            else:
                self.expect("=")
                if pname in ("default_action",):
                    value = self._action_ref()
                else:
                    value = self.expression()
                self.expect(";")
                props.append(A.TableProperty(pt.loc, pname, value, is_const, annos))
        return A.TableDecl(n.loc, n.text, props)

    def _action_ref(self) -> A.ActionRefSyntax:
        annos = self.annotations()
        is_global = bool(self.accept("."))
        t = self.ident()
        args = self.arguments() if self.at("(") else []
        return A.ActionRefSyntax(t.loc, t.text, args, annos, is_global)


def parse(toks: list[Token]) -> A.Program:
    return Parser(toks).program()
