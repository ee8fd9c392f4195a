"""Expressions, call arguments, and keysets (select cases and table entries)."""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.parser.type_refs import TypeParser

# binary operator precedence levels, lowest first (p4c's grammar: bitwise binds tighter
# than comparisons)
BINARY_LEVELS = [
    ["||"], ["&&"], ["==", "!="], ["<", ">", "<=", ">="], ["|"], ["^"], ["&"],
    ["<<", ">>"], ["++", "+", "-", "|+|", "|-|"], ["*", "/", "%"],
]


class ExprParser(TypeParser):
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
        return self._postfix(self.primary())

    def _is_cast(self) -> bool:
        t = self.peek()
        if t.kind == "kw" and t.text in ("bit", "int", "varbit", "bool", "error", "tuple", "string"):
            return True
        if t.text == "." and self.peek(2).kind == "id" and self.is_type_name(self.peek(2).text):
            return self.peek(3).text in (")", "<")
        if t.kind == "id" and self.is_type_name(t.text):
            return self.peek(2).text in (")", "<", "[")
        return False

    def primary(self) -> A.Expr:
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
                return A.TypeExpr(t.loc, self.base_type())
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
                return A.TypeExpr(t.loc, self.base_type())
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
