"""The program: its top-level declarations (constants, types, externs, functions, actions,
parsers, controls, packages and instances)."""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.parser.blocks import BlockParser


class DeclParser(BlockParser):
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
            d = self.block_decl()
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
        kind, n, tparams = self.generic_head()
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
