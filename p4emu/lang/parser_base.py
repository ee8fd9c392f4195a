"""Token helpers, annotations, types and expressions of the P4_16 parser.

Like p4c's lexer, it tells type names from other identifiers with a symbol table: a
pre-scan collects every globally declared type name, and generic type parameters are
added while their declaration is parsed.
"""


from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.lexer import Token

BUILTIN_TYPES = {"packet_in", "packet_out"}
COMPOUND_ASSIGN = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", "|+|=", "|-|="}
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


def _check_p4runtime_translation(body: list[Token], name: Token) -> None:
    """p4c parses this annotation's body: `("URI", bit<W> | string | INTEGER)`."""
    texts = [t.text for t in body]
    if len(body) >= 1 and body[0].kind == "str" and (
            len(body) == 1
            or (len(body) == 3 and texts[1] == "," and (body[2].kind == "num" or texts[2] == "string"))
            or (len(body) == 6 and texts[1:4] == [",", "bit", "<"] and body[4].kind == "num"
                and texts[5] == ">")):
        return
    bad = next((t for t in body[2:] if t.kind != "num" and t.text not in ("bit", "<", ">", "string")),
               body[2] if len(body) > 2 else name)
    raise P4CompileError(bad.loc, f"syntax error, unexpected {bad.text!r}: @p4runtime_translation "
                                  "takes a URI string and bit<W>, string or an integer")


class ExprParser:
    """Shared state and the expression/type half of the parser."""

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
        if tok.kind == "bad":
            raise P4CompileError(tok.loc, f"unexpected character {tok.text!r}")
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
            if t.text == "pragma":
                annos.append(self._pragma(t, at))
                continue
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
            if t.text == "p4runtime_translation":
                _check_p4runtime_translation(body, t)
            annos.append(A.Annotation(t.text, body, at.loc))
        return annos

    def _pragma(self, t: Token, at: Token) -> A.Annotation:
        """`@pragma NAME TOKENS...`: as in p4c's lexer, the annotation runs to the end of
        the line; it is the annotation NAME with the remaining tokens as its body."""
        body: list[Token] = []
        while self.tok.kind != "eof" and self.tok.loc.file == t.loc.file and self.tok.loc.line == t.loc.line:
            body.append(self.tok)
            self.i += 1
        if not body:
            raise P4CompileError(t.loc, "@pragma needs a name")
        return A.Annotation(body[0].text, body[1:], at.loc)

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
        seen = set()
        for p in out:
            if p.name in seen:
                raise P4CompileError(p.loc, f"{p.name}: duplicate parameter name")
            seen.add(p.name)
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
        if direction and isinstance(ty, A.TBase) and ty.name == "int":
            # an arbitrary-precision value only exists at compile time (p4c TypeInference)
            raise P4CompileError(t.loc, f"{t.text}: parameters with type int must be directionless")
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
        if t.text == "+" and self._plus_colon():
            return None  # `e[lo +: w]`: ends the slice's first expression
        if t.text in ops:
            if t.text == ">" and ">" in ops:
                nxt = self.peek()
                # `>>` (shift) and `>>=` (compound assignment) are not comparisons
                if nxt.text in (">", ">=") and nxt.loc.line == t.loc.line and nxt.loc.col == t.loc.col + 1:
                    return None
            return t.text
        return None

    def _plus_colon(self) -> bool:
        """At `+:` (two tokens, the lexer has no `+:`)."""
        t, nxt = self.tok, self.peek()
        return nxt.text == ":" and nxt.loc.line == t.loc.line and nxt.loc.col == t.loc.col + 1

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
            digits = t.text.split("w", 1)[-1].split("s", 1)[-1].lstrip("-")
            base = {"x": 16, "b": 2, "o": 8}.get(digits[1:2].lower(), 10) if digits[:1] == "0" else 10
            return A.IntLit(t.loc, v, w, s, base)
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
        if t.text == "..." and t.kind == "punct":
            self.i += 1
            return A.DefaultValue(t.loc)
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
        if self.at("#") and self.peek().text == "}":
            self.i += 2
            return A.InvalidHeader(t.loc)
        if self.at("..."):
            self.i += 1
            self.expect("}")
            return A.ListExpr(t.loc, [], True)
        if self.tok.kind == "id" and self.peek().text == "=":
            fields = []
            rest = False
            while True:
                if self.accept("..."):
                    rest = True
                    break
                n = self.name()
                self.expect("=")
                fields.append((n, self.expression()))
                if not self.accept(","):
                    break
                if self.at("}"):
                    break
            self.expect("}")
            return A.StructExpr(t.loc, fields, None, rest)
        items = [self.expression()]
        rest = False
        while self.accept(","):
            if self.at("}"):
                break
            if self.accept("..."):
                rest = True
                break
            items.append(self.expression())
        self.expect("}")
        return A.ListExpr(t.loc, items, rest)

    def _postfix(self, e: A.Expr) -> A.Expr:
        while True:
            t = self.tok
            if t.text == ".":
                self.i += 1
                e = A.Member(t.loc, e, self.member_name())
            elif t.text == "[":
                self.i += 1
                first = self.expression()
                if self.at("+") and self._plus_colon():
                    # P4 1.2.4 `e[lo +: w]` is `e[lo + w - 1 : lo]`
                    self.i += 2
                    width = self.expression()
                    self.expect("]")
                    one = A.IntLit(t.loc, 1, None, False)
                    hi = A.Binary(t.loc, "-", A.Binary(t.loc, "+", first, width), one)
                    e = A.Slice(t.loc, e, hi, first)
                elif self.accept(":"):
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
