"""The bottom layer of the parser: the token cursor and the type-name symbol table."""

from __future__ import annotations

from p4emu.lang.errors import P4CompileError
from p4emu.lang.lexer import Token
from p4emu.lang.parser.type_names import prescan_type_names

TYPE_KEYWORDS = {"bit", "int", "varbit", "bool", "error", "string", "void", "tuple", "match_kind"}


class TokenParser:
    """Position in the token list, token tests, syntax errors, names, and whether a name
    is a type (`type_names`: global, `scoped_types`: generic parameters in scope)."""

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

    # -- the type-name symbol table ---------------------------------------------------
    def is_type_name(self, text: str) -> bool:
        return text in self.type_names or any(text in s for s in self.scoped_types)

    def at_type_start(self, k: int = 0) -> bool:
        t = self.peek(k)
        if t.kind == "kw" and t.text in TYPE_KEYWORDS:
            return True
        if t.text == "." and self.peek(k + 1).kind == "id":
            return self.is_type_name(self.peek(k + 1).text)
        return t.kind == "id" and self.is_type_name(t.text)
