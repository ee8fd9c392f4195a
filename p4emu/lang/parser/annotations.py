"""Annotations (`@name`, `@name(...)`, `@name[...]`, `@pragma name ...`), kept as their
raw tokens (`ast.Annotation.body`)."""

from __future__ import annotations

from p4emu.lang import ast as A
from p4emu.lang.errors import P4CompileError
from p4emu.lang.lexer import Token
from p4emu.lang.parser.tokens import TokenParser


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


class AnnotationParser(TokenParser):
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
