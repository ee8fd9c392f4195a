"""Recursive-descent parser for P4_16.

Like p4c's lexer, it tells type names from other identifiers with a symbol table: a
pre-scan collects every globally declared type name, and generic type parameters are
added while their declaration is parsed.
"""

from __future__ import annotations

from p4emu.frontend import ast as A
from p4emu.frontend.errors import P4CompileError
from p4emu.frontend.lexer import Token

BUILTIN_TYPES = {"packet_in", "packet_out"}
TYPE_KEYWORDS = {"bit", "int", "varbit", "bool", "error", "string", "void", "tuple", "match_kind"}

# binary operator precedence levels, lowest first (p4c's grammar: bitwise binds tighter
# than comparisons)
BINARY_LEVELS = [
    ["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["|"], ["^"], ["&"],
    ["<<", ">>"], ["++", "+", "-", "|+|", "|-|"], ["*", "/", "%"],
]


def prescan_type_names(toks: list[Token]) -> set[str]:
    names = set(BUILTIN_TYPES)
    n = len(toks)
    for i, t in enumerate(toks):
        if t.kind == "kw" and t.text in ("header", "struct", "header_union", "enum", "parser",
                                         "control", "package", "extern"):
            j = i + 1
            if t.text == "enum" and j < n and toks[j].text in ("bit", "int"):
                # enum bit<8> Name {
                while j < n and toks[j].text != "{":
                    j += 1
                if toks[j - 1].kind == "id":
                    names.add(toks[j - 1].text)
                continue
            if t.text == "extern":
                # extern Name { / extern Name<T> {  vs  extern T f(...);
                if j + 1 < n and toks[j].kind == "id" and toks[j + 1].text in ("{", "<"):
                    k = j + 1
                    if toks[k].text == "<":
                        depth = 0
                        while k < n:
                            depth += toks[k].text == "<"
                            depth -= toks[k].text == ">"
                            k += 1
                            if depth == 0:
                                break
                    if k < n and toks[k].text == "{":
                        names.add(toks[j].text)
                continue
            if j < n and toks[j].kind == "id":
                names.add(toks[j].text)
        elif t.kind == "kw" and t.text == "typedef" or (
            t.kind == "id" and t.text == "type" and i + 1 < n
            and (toks[i + 1].kind in ("kw", "id")) and (i == 0 or toks[i - 1].text in (";", "}", ")"))
            and _looks_like_type_decl(toks, i)
        ):
            j = i + 1
            depth = 0
            while j < n and not (toks[j].text == ";" and depth == 0):
                depth += toks[j].text in ("(", "{", "[")
                depth -= toks[j].text in (")", "}", "]")
                j += 1
            if toks[j - 1].kind == "id":
                names.add(toks[j - 1].text)
    return names


def _looks_like_type_decl(toks: list[Token], i: int) -> bool:
    # `type bit<9> PortId_t;` (not a parameter named `type`)
    j = i + 1
    while j < len(toks) and toks[j].text != ";":
        if toks[j].text in (",", ")", "=", "{"):
            return False
        j += 1
    return True


class Parser:
    def __init__(self, toks: list[Token]):
        self.toks = toks
        self.i = 0
        self.type_names = prescan_type_names(toks)
        self.scoped_types: list[set[str]] = []

    # -- token helpers -----------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, text: str) -> bool:
        t = self.toks[self.i]
        return t.text == text and t.kind != "str"

    def accept(self, text: str) -> Token | None:
        if self.at(text):
            t = self.tok
            self.i += 1
            return t
        return None

    def expect(self, text: str) -> Token:
        if self.at(text):
            t = self.tok
            self.i += 1
            return t
        self.error(f"expected '{text}'")

    def error(self, msg: str, tok: Token | None = None):
        tok = tok or self.tok
        raise P4CompileError(tok.loc, f"syntax error, {msg}, found '{tok.text}'")

    def ident(self) -> Token:
        t = self.tok
        if t.kind == "id" or (t.kind == "kw" and t.text in ("apply", "state")):
            self.i += 1
            return t
        self.error("expected an identifier")

    def name(self) -> str:
        return self.ident().text

    def member_name(self) -> str:
        t = self.tok
        if t.kind in ("id", "kw"):
            self.i += 1
            return t.text
        self.error("expected a member name")

    def is_type_name(self, text: str) -> bool:
        return text in self.type_names or any(text in s for s in self.scoped_types)

    def at_type_start(self, k: int = 0) -> bool:
        t = self.peek(k)
        if t.kind == "kw" and t.text in TYPE_KEYWORDS:
            return True
        if t.text == "." and self.peek(k + 1).kind == "id":
            return self.is_type_name(self.peek(k + 1).text)
        return t.kind == "id" and self.is_type_name(t.text)

    # -- annotations -------------------------------------------------------------------
    def annotations(self) -> list[A.Annotation]:
        annos = []
        while self.at("@"):
            at = self.expect("@")
            t = self.tok
            if t.kind not in ("id", "kw"):
                self.error("expected an annotation name")
            self.i += 1
            body: list[Token] = []
            if self.at("(") or self.at("["):
                close = ")" if self.tok.text == "(" else "]"
                opener = self.tok.text
                self.i += 1
                depth = 0
                while not (self.at(close) and depth == 0):
                    if self.tok.kind == "eof":
                        self.error("unterminated annotation")
                    depth += self.tok.text == opener
                    depth -= self.tok.text == close
                    body.append(self.tok)
                    self.i += 1
                self.i += 1
            annos.append(A.Annotation(t.text, body, at.loc))
        return annos

    # -- types -------------------------------------------------------------------------
    def type_ref(self) -> A.TypeRef:
        t = self.tok
        base = self._base_type()
        while self.at("["):
            self.i += 1
            size = self.expression()
            self.expect("]")
            base = A.TStack(t.loc, base, size)
        return base

    def _base_type(self) -> A.TypeRef:
        t = self.tok
        if t.kind == "kw" and t.text in ("bit", "int", "varbit"):
            self.i += 1
            if self.accept("<"):
                if self.at("("):
                    self.i += 1
                    width = self.expression()
                    self.expect(")")
                else:
                    width = self._primary()
                self.expect(">")
            else:
                if t.text == "int":
                    return A.TBase(t.loc, "int")
                if t.text == "varbit":
                    self.error("expected '<' after varbit")
                width = A.IntLit(t.loc, 1, None, False)
            return A.TBits(t.loc, width, t.text == "int", t.text == "varbit")
        if t.kind == "kw" and t.text in ("bool", "error", "string", "void", "match_kind"):
            self.i += 1
            return A.TBase(t.loc, t.text)
        if t.kind == "kw" and t.text == "tuple":
            self.i += 1
            self.expect("<")
            args = [self.type_ref()]
            while self.accept(","):
                args.append(self.type_ref())
            self.expect(">")
            return A.TTuple(t.loc, args)
        if t.text == "_" and t.kind == "id":
            self.i += 1
            return A.TBase(t.loc, "_")
        is_global = bool(self.accept("."))
        t = self.tok
        if t.kind != "id":
            self.error("expected a type")
        self.i += 1
        args = []
        if self.at("<") and (self.at_type_start(1) or self.peek().kind == "num" or self.peek().text == "_"):
            self.i += 1
            args.append(self.type_ref())
            while self.accept(","):
                args.append(self.type_ref())
            self.expect(">")
        return A.TName(t.loc, t.text, args, is_global)

    def type_params(self) -> list[str]:
        names = []
        if self.accept("<"):
            names.append(self.name())
            while self.accept(","):
                names.append(self.name())
            self.expect(">")
        return names

    def params(self) -> list[A.Param]:
        self.expect("(")
        out = []
        if not self.at(")"):
            out.append(self.param())
            while self.accept(","):
                out.append(self.param())
        self.expect(")")
        return out

    def param(self) -> A.Param:
        annos = self.annotations()
        direction = ""
        if self.tok.kind == "kw" and self.tok.text in ("in", "out", "inout"):
            direction = self.tok.text
            self.i += 1
        ty = self.type_ref()
        t = self.ident()
        default = self.expression() if self.accept("=") else None
        p = A.Param(t.loc, t.text, direction, ty, default)
        p.annotations = annos
        return p

    # -- expressions -------------------------------------------------------------------
    def expression(self) -> A.Expr:
        cond = self._binary(0)
        if self.at("?"):
            self.i += 1
            a = self.expression()
            self.expect(":")
            b = self.expression()
            return A.Ternary(cond.loc, cond, a, b)
        return cond

    def _binary_op(self, ops: list[str]) -> str | None:
        t = self.tok
        if t.kind != "punct":
            return None
        if ">>" in ops and t.text == ">":
            nxt = self.peek()
            if nxt.text == ">" and nxt.loc.line == t.loc.line and nxt.loc.col == t.loc.col + 1:
                return ">>"
        if t.text in ops:
            if t.text == ">" and ">" in ops:
                nxt = self.peek()
                if nxt.text == ">" and nxt.loc.line == t.loc.line and nxt.loc.col == t.loc.col + 1:
                    return None
            return t.text
        return None

    def _binary(self, level: int) -> A.Expr:
        if level == len(BINARY_LEVELS):
            return self._unary()
        left = self._binary(level + 1)
        while True:
            op = self._binary_op(BINARY_LEVELS[level])
            if op is None:
                return left
            loc = self.tok.loc
            self.i += 2 if op == ">>" else 1
            right = self._binary(level + 1)
            left = A.Binary(loc, op, left, right)

    def _unary(self) -> A.Expr:
        t = self.tok
        if t.kind == "punct" and t.text in ("!", "~", "-", "+"):
            self.i += 1
            e = self._unary()
            return A.Unary(t.loc, t.text, e)
        if t.text == "(" and self._is_cast():
            self.i += 1
            ty = self.type_ref()
            self.expect(")")
            e = self._unary()
            return A.Cast(t.loc, ty, e)
        return self._postfix(self._primary())

    def _is_cast(self) -> bool:
        t = self.peek()
        if t.kind == "kw" and t.text in ("bit", "int", "varbit", "bool", "error", "tuple", "string"):
            return True
        if t.text == "." and self.peek(2).kind == "id" and self.is_type_name(self.peek(2).text):
            return self.peek(3).text in (")", "<")
        if t.kind == "id" and self.is_type_name(t.text):
            return self.peek(2).text in (")", "<", "[")
        return False

    def _primary(self) -> A.Expr:
        t = self.tok
        if t.kind == "num":
            self.i += 1
            v, w, s = t.value
            return A.IntLit(t.loc, v, w, s)
        if t.kind == "kw" and t.text in ("true", "false"):
            self.i += 1
            return A.BoolLit(t.loc, t.text == "true")
        if t.kind == "str":
            self.i += 1
            return A.StrLit(t.loc, t.value)
        if t.text == "(":
            self.i += 1
            e = self.expression()
            self.expect(")")
            return e
        if t.text == "{":
            return self._brace_expr()
        if t.kind == "kw" and t.text in ("error", "bit", "int", "varbit", "bool", "tuple"):
            ty = self.type_ref()
            return A.TypeExpr(t.loc, ty)
        if t.text == "." and self.peek().kind in ("id",):
            self.i += 1
            n = self.ident()
            if self.is_type_name(n.text):
                self.i -= 2
                return A.TypeExpr(t.loc, self._base_type())
            return A.Path(n.loc, n.text, True)
        if t.kind == "id" and t.text == "_":
            self.i += 1
            return A.DontCare(t.loc)
        if t.kind == "kw" and t.text == "default":
            self.i += 1
            return A.DefaultKey(t.loc)
        if t.kind == "kw" and t.text == "this":
            self.i += 1
            return A.Path(t.loc, "this")
        if t.kind == "id" or (t.kind == "kw" and t.text in ("apply", "state")):
            if self.is_type_name(t.text):
                return A.TypeExpr(t.loc, self._base_type())
            self.i += 1
            return A.Path(t.loc, t.text)
        self.error("expected an expression")

    def _brace_expr(self) -> A.Expr:
        t = self.expect("{")
        if self.at("}"):
            self.i += 1
            return A.ListExpr(t.loc, [])
        if self.tok.kind == "id" and self.peek().text == "=":
            fields = []
            while True:
                n = self.name()
                self.expect("=")
                fields.append((n, self.expression()))
                if not self.accept(","):
                    break
                if self.at("}"):
                    break
            self.expect("}")
            return A.StructExpr(t.loc, fields)
        items = [self.expression()]
        while self.accept(","):
            if self.at("}"):
                break
            items.append(self.expression())
        self.expect("}")
        return A.ListExpr(t.loc, items)

    def _postfix(self, e: A.Expr) -> A.Expr:
        while True:
            t = self.tok
            if t.text == ".":
                self.i += 1
                e = A.Member(t.loc, e, self.member_name())
            elif t.text == "[":
                self.i += 1
                first = self.expression()
                if self.accept(":"):
                    lo = self.expression()
                    self.expect("]")
                    e = A.Slice(t.loc, e, first, lo)
                else:
                    self.expect("]")
                    e = A.Index(t.loc, e, first)
            elif t.text == "(":
                e = A.Call(t.loc, e, [], self.arguments())
            elif t.text == "<" and isinstance(e, (A.Member, A.Path)) and self._generic_call_ahead():
                self.i += 1
                targs = [self.type_ref()]
                while self.accept(","):
                    targs.append(self.type_ref())
                self.expect(">")
                e = A.Call(t.loc, e, targs, self.arguments())
            else:
                return e

    def _generic_call_ahead(self) -> bool:
        if not (self.at_type_start(1) or self.peek().text == "_"):
            return False
        # find the matching '>' and require '(' after it
        depth = 0
        k = self.i
        while k < len(self.toks):
            s = self.toks[k].text
            if s == "<":
                depth += 1
            elif s == ">":
                depth -= 1
                if depth == 0:
                    return self.toks[k + 1].text == "("
            elif s in (";", "{", "}"):
                return False
            k += 1
        return False

    def arguments(self) -> list[A.Arg]:
        self.expect("(")
        args = []
        if not self.at(")"):
            args.append(self._argument())
            while self.accept(","):
                args.append(self._argument())
        self.expect(")")
        return args

    def _argument(self) -> A.Arg:
        t = self.tok
        if t.kind == "id" and self.peek().text == "=" and self.peek(2).text != "=":
            self.i += 2
            if self.tok.text == "_" and self.peek().text in (",", ")"):
                self.i += 1
                return A.Arg(t.loc, t.text, None)
            return A.Arg(t.loc, t.text, self.expression())
        if t.text == "_" and self.peek().text in (",", ")"):
            self.i += 1
            return A.Arg(t.loc, None, None)
        return A.Arg(t.loc, None, self.expression())

    def keyset_expr(self) -> A.Expr:
        t = self.tok
        if t.kind == "kw" and t.text == "default":
            self.i += 1
            return A.DefaultKey(t.loc)
        if t.text == "_" and self.peek().text in (",", ")", ":"):
            self.i += 1
            return A.DontCare(t.loc)
        e = self.expression()
        if self.at("&&&"):
            loc = self.tok.loc
            self.i += 1
            return A.Mask(loc, e, self.expression())
        if self.at(".."):
            loc = self.tok.loc
            self.i += 1
            return A.Range(loc, e, self.expression())
        return e

    def keyset_list(self) -> list[A.Expr]:
        if self.at("(") and not self._paren_is_expression():
            self.i += 1
            keys = [self.keyset_expr()]
            while self.accept(","):
                keys.append(self.keyset_expr())
            self.expect(")")
            return keys
        return [self.keyset_expr()]

    def _paren_is_expression(self) -> bool:
        # `(a, b)` is a tuple keyset; `(a + b) &&& m` is an expression
        depth = 0
        k = self.i
        while k < len(self.toks):
            s = self.toks[k].text
            if s in ("(", "{", "["):
                depth += 1
            elif s in (")", "}", "]"):
                depth -= 1
                if depth == 0:
                    return self.toks[k + 1].text not in (":",)
            elif s == "," and depth == 1:
                return False
            k += 1
        return False

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
        if not isinstance(lhs, A.Call):
            self.error("expected an assignment or a method call")
        self.expect(";")
        return A.CallStmt(t.loc, lhs)

    def _at_declaration(self) -> bool:
        if not self.at_type_start():
            return False
        # T x ... / T<...> x / T(args) x / T[n] x ; but not T.member(...) (e.g. enum use)
        k = 1 if self.tok.text != "." else 2
        nxt = self.peek(k)
        return nxt.text != "."

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
            decls.append(self.declaration())
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
            ty = self.type_ref()
            n = self.ident()
            self.expect(";")
            d = A.TypedefDecl(n.loc, n.text, ty, t.text == "type")
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
        elif self.at_type_start():
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
                    exprs = [self.expression()]
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
                    prio = None
                    if self.tok.text == "priority" and self.peek().text == "=":
                        self.i += 2
                        prio = self.expression()
                        self.expect(":")
                    keys = self.keyset_list()
                    self.expect(":")
                    ref = self._action_ref()
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
