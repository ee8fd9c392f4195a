"""Parsers and controls: their bodies' local declarations, actions, tables and parser
states."""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.parser.statements import StmtParser


class BlockParser(StmtParser):
    def generic_head(self):
        """`KEYWORD Name<T, ...>`: the keyword, the name token, the type parameters (in
        scope until the caller pops `scoped_types`)."""
        kind = self.tok.text
        self.i += 1
        n = self.ident()
        self.type_names.add(n.text)
        tparams = self.type_params()
        self.scoped_types.append(set(tparams))
        return kind, n, tparams

    def block_decl(self) -> A.Decl:
        kind, n, tparams = self.generic_head()
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
