"""Tokens of P4_16 (after preprocessing)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from p4emu.lang.errors import Loc, P4CompileError
from p4emu.lang.preprocess import SourceLine

KEYWORDS = {
    "action", "apply", "bit", "bool", "break", "const", "continue", "control", "default", "else",
    "for",
    "enum", "error", "exit", "extern", "false", "header", "header_union", "if", "in",
    "inout", "int", "match_kind", "out", "parser", "package", "return", "select",
    "state", "string", "struct", "switch", "table", "this", "transition", "true", "tuple",
    "typedef", "value_set", "varbit", "void",
}
# `type`, `key`, `actions`, `entries`, `priority`, `list` are contextual: lexed as identifiers

PUNCT = [
    "&&&", "|+|=", "|-|=", "|+|", "|-|", "...", "<<=", "<<", "<=", ">=", "==", "!=", "&&", "||",
    "++", "..", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "?", ":", ";", ",", ".", "(", ")",
    "{", "}", "[", "]", "<", ">", "=", "@", "#",
]

_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<num>(?:\d+w|\d+s-?)?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|0[dD][0-9_]+|\d[\d_]*))"
    r"|(?P<id>[A-Za-z_]\w*)"
    r'|(?P<str>"(?:\\.|[^"\\])*")'
    r"|(?P<punct>" + "|".join(re.escape(p) for p in PUNCT) + ")"
)


@dataclass(slots=True)
class Token:
    kind: str  # "id", "kw", "num", "str", "punct", "eof"
    text: str
    loc: Loc
    end_col: int
    value: object = None  # for numbers: (value, width | None, signed)

    def __repr__(self) -> str:
        return f"{self.text!r}@{self.loc}"


def parse_number(text: str, loc: Loc) -> tuple[int, int | None, bool]:
    width: int | None = None
    signed = False
    m = re.match(r"(\d+)([ws])(-?)(.*)$", text)
    negative = False
    if m:
        width, signed, text = int(m.group(1)), m.group(2) == "s", m.group(4)
        negative = m.group(3) == "-"
    body = text.replace("_", "")
    try:
        if len(body) > 1 and body[0] == "0" and body[1] in "xXbBoOdD":
            base = {"x": 16, "b": 2, "o": 8, "d": 10}[body[1].lower()]
            value = int(body[2:], base)
        else:
            value = int(body, 10)
    except ValueError:
        raise P4CompileError(loc, f"invalid integer literal {text!r}") from None
    if negative:
        value = -value
    if width is not None and width <= 0:
        raise P4CompileError(loc, f"invalid width in integer literal {text!r}")
    return value, width, signed


def tokenize(lines: list[SourceLine]) -> list[Token]:
    toks: list[Token] = []
    for sl in lines:
        text = sl.text
        pos = 0
        n = len(text)
        while pos < n:
            m = _TOKEN_RE.match(text, pos)
            if not m:
                # as p4c's UNEXPECTED_TOKEN: legal inside an annotation body (free-form
                # annotations), an error anywhere else (Parser.error)
                toks.append(Token("bad", text[pos], Loc(sl.file, sl.line, pos + 1), pos + 2))
                pos += 1
                continue
            kind = m.lastgroup
            s = m.group(kind)
            loc = Loc(sl.file, sl.line, pos + 1)
            pos = m.end()
            if kind == "ws":
                continue
            if kind == "id":
                toks.append(Token("kw" if s in KEYWORDS else "id", s, loc, pos + 1))
            elif kind == "num":
                toks.append(Token("num", s, loc, pos + 1, parse_number(s, loc)))
            elif kind == "str":
                toks.append(Token("str", s, loc, pos + 1, bytes(s[1:-1], "utf-8").decode("unicode_escape")))
            else:
                toks.append(Token("punct", s, loc, pos + 1))
    last = lines[-1] if lines else SourceLine("<input>", 1, "")
    toks.append(Token("eof", "<end of file>", Loc(last.file, last.line, len(last.text) + 1), 0))
    return toks
