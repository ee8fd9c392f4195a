"""A C preprocessor subset, as p4c runs cpp on P4 sources.

Handles comments, line continuations, #include "..." / <...>, object- and function-like
#define (with # and ##), #undef, #if/#ifdef/#ifndef/#elif/#else/#endif with defined(),
#error, and ignores #pragma/#line. Output is a list of `SourceLine(file, line, text)` so
that the lexer reports positions in the original files.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from p4emu.lang.errors import Loc, P4CompileError

DEFAULT_INCLUDE_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "p4include")

_TOKEN = re.compile(
    r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[A-Za-z_]\w*|\d\w*|##|#|\s+|.',
)
_IDENT = re.compile(r"[A-Za-z_]\w*$")


@dataclass(frozen=True, slots=True)
class SourceLine:
    file: str
    line: int
    text: str


@dataclass
class Macro:
    name: str
    params: list[str] | None  # None: object-like
    body: str
    variadic: bool = False


def strip_comments(text: str) -> str:
    """Replace comments by spaces, keeping newlines so that line numbers stay right."""
    out: list[str] = []
    i, n = 0, len(text)
    pending = 0  # newlines of a comment inside a directive, owed after that directive
    while i < n:
        c = text[i]
        if pending and c == "\n":
            # cpp removes comments before directives: a block comment spanning lines
            # inside a directive (`#define M /* a \n b */ x`) leaves the directive whole
            out.append("\n" * (pending + 1))
            pending = 0
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            if text[text.rfind("\n", 0, i) + 1 : i].lstrip().startswith("#"):
                out.append(" ")
                pending += text.count("\n", i, j)
            else:
                out.append(" " + "\n" * text.count("\n", i, j))
            i = j
        else:
            j = i
            while j < n and text[j] not in '"/' and not (pending and text[j] == "\n"):
                j += 1
            if j == i:
                j = i + 1
            out.append(text[i:j])
            i = j
    return "".join(out)


# Macros p4c-bm2-ss gives its cpp run (which has -undef: no compiler-predefined ones):
# the frontend's version macros and the back end's target macro.
PREDEFINED = {
    "__p4c__": "1", "__p4c_major__": "1", "__p4c_minor__": "2", "__p4c_patchlevel__": "5",
    "__p4c_version__": '"1.2.5"', "__TARGET_BMV2__": "1",
}


class Preprocessor:
    def __init__(self, include_dirs=(), defines: dict[str, str] | None = None):
        self.include_dirs = [*include_dirs, DEFAULT_INCLUDE_DIR]
        self.macros: dict[str, Macro] = {}
        for name, value in {**PREDEFINED, **(defines or {})}.items():
            self.macros[name] = Macro(name, None, "1" if value is None else str(value))
        self.out: list[SourceLine] = []
        self._depth = 0
        self._once: set[str] = set()

    # -- files -------------------------------------------------------------------------
    def run_file(self, path: str) -> list[SourceLine]:
        try:
            with open(path, encoding="utf-8-sig", errors="replace") as f:  # cpp skips a BOM; bytes
                # that are not UTF-8 (Latin-1 comments) pass through cpp and p4c untouched
                text = f.read()
        except OSError as e:
            raise P4CompileError(Loc(path, 0, 0), f"cannot read file: {e.strerror}") from None
        self._process(path, text)
        return self.out

    def _find_include(self, loc: Loc, name: str, quoted: bool) -> str:
        dirs = ([os.path.dirname(loc.file) or "."] if quoted else []) + self.include_dirs
        for d in dirs:
            cand = os.path.join(d, name)
            if os.path.isfile(cand):
                return cand
        raise P4CompileError(loc, f"#include file not found: {name}")

    def _process(self, path: str, text: str) -> None:
        self._depth += 1
        if self._depth > 50:
            raise P4CompileError(Loc(path, 1, 1), "#include nested too deeply")
        lines = strip_comments(text).split("\n")
        # stack of (taking, any_branch_taken, else_seen)
        cond: list[list[bool]] = []
        i = 0
        while i < len(lines):
            lineno = i + 1
            line = lines[i]
            while line.endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line[:-1] + lines[i]
            i += 1
            loc = Loc(path, lineno, 1)
            stripped = line.strip()
            active = all(c[0] for c in cond)
            if stripped.startswith("#"):
                m = re.match(r"#\s*(\w*)\s*(.*)$", stripped)
                directive, rest = (m.group(1), m.group(2).strip()) if m else ("", "")
                if directive in ("if", "ifdef", "ifndef"):
                    if not active:
                        cond.append([False, True, False])
                    else:
                        if directive == "if":
                            val = self._eval_if(loc, rest)
                        else:
                            name = rest.split()[0] if rest.split() else ""
                            val = (name in self.macros) == (directive == "ifdef")
                        cond.append([val, val, False])
                elif directive in ("elif", "else"):
                    if not cond or cond[-1][2]:
                        raise P4CompileError(loc, f"#{directive} without #if")
                    top = cond[-1]
                    outer = all(c[0] for c in cond[:-1])
                    if directive == "else":
                        top[2] = True
                        top[0] = outer and not top[1]
                    else:
                        take = outer and not top[1] and self._eval_if(loc, rest)
                        top[0] = take
                    top[1] = top[1] or top[0]
                elif directive == "endif":
                    if not cond:
                        raise P4CompileError(loc, "#endif without #if")
                    cond.pop()
                elif not active:
                    pass
                elif directive == "include":
                    self._include(loc, rest)
                elif directive == "define":
                    self._define(loc, rest)
                elif directive == "undef":
                    self.macros.pop(rest.split()[0] if rest else "", None)
                elif directive == "error":
                    raise P4CompileError(loc, f"#error {rest}")
                elif directive in ("pragma", "line", "warning", "") or directive.isdigit():
                    if rest == "once":
                        self._once.add(os.path.abspath(path))
                else:
                    raise P4CompileError(loc, f"invalid preprocessing directive #{directive}")
                self.out.append(SourceLine(path, lineno, ""))
                continue
            if active:
                self.out.append(SourceLine(path, lineno, self.expand(line, loc)))
        if cond:
            raise P4CompileError(Loc(path, len(lines), 1), "unterminated #if")
        self._depth -= 1

    def _include(self, loc: Loc, rest: str) -> None:
        rest = self.expand(rest, loc).strip() if not rest.startswith(('"', "<")) else rest
        m = re.match(r'"([^"]+)"|<([^>]+)>', rest)
        if not m:
            raise P4CompileError(loc, f"#include expects \"FILE\" or <FILE>: {rest}")
        target = self._find_include(loc, m.group(1) or m.group(2), m.group(1) is not None)
        if os.path.abspath(target) in self._once:
            return
        with open(target, encoding="utf-8-sig", errors="replace") as f:
            self._process(target, f.read())

    def _define(self, loc: Loc, rest: str) -> None:
        m = re.match(r"([A-Za-z_]\w*)(\(([^)]*)\))?\s*(.*)$", rest, re.S)
        if not m:
            raise P4CompileError(loc, f"macro name missing in #define {rest}")
        name, params, body = m.group(1), m.group(3), m.group(4).strip()
        if m.group(2) is None:
            self.macros[name] = Macro(name, None, body)
            return
        plist = [p.strip() for p in params.split(",")] if params.strip() else []
        variadic = bool(plist) and plist[-1] == "..."
        if variadic:
            plist[-1] = "__VA_ARGS__"
        self.macros[name] = Macro(name, plist, body, variadic)

    # -- expansion ---------------------------------------------------------------------
    def expand(self, text: str, loc: Loc, disabled: frozenset[str] = frozenset()) -> str:
        if not any(name in text for name in self.macros):
            return text
        toks = _TOKEN.findall(text)
        out: list[str] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            macro = self.macros.get(t)
            if macro is None or t in disabled:
                out.append(t)
                i += 1
                continue
            if macro.params is None:
                out.append(self.expand(macro.body, loc, disabled | {t}))
                i += 1
                continue
            j = i + 1
            while j < len(toks) and toks[j].isspace():
                j += 1
            if j >= len(toks) or toks[j] != "(":
                out.append(t)
                i += 1
                continue
            args, i = self._collect_args(toks, j, loc)
            out.append(self._apply(macro, args, loc, disabled))
        return "".join(out)

    @staticmethod
    def _collect_args(toks: list[str], j: int, loc: Loc) -> tuple[list[str], int]:
        depth, args, cur = 0, [], []
        j += 1
        while j < len(toks):
            t = toks[j]
            if t == "(":
                depth += 1
            elif t == ")":
                if depth == 0:
                    args.append("".join(cur).strip())
                    return args, j + 1
                depth -= 1
            elif t == "," and depth == 0:
                args.append("".join(cur).strip())
                cur = []
                j += 1
                continue
            cur.append(t)
            j += 1
        raise P4CompileError(loc, "unterminated argument list invoking macro")

    def _apply(self, macro: Macro, args: list[str], loc: Loc, disabled: frozenset[str]) -> str:
        params = macro.params or []
        if args == [""] and not params:
            args = []
        if macro.variadic:
            fixed = len(params) - 1
            args = args[:fixed] + [", ".join(args[fixed:])]
        if len(args) != len(params):
            raise P4CompileError(
                loc, f"macro {macro.name} expects {len(params)} arguments, got {len(args)}"
            )
        binding = dict(zip(params, args, strict=True))
        body = _TOKEN.findall(macro.body)
        out: list[str] = []
        k = 0
        while k < len(body):
            t = body[k]
            if t == "#" and k + 1 < len(body):
                nxt = k + 1
                while nxt < len(body) and body[nxt].isspace():
                    nxt += 1
                if nxt < len(body) and body[nxt] in binding:
                    out.append('"' + binding[body[nxt]].replace('"', '\\"') + '"')
                    k = nxt + 1
                    continue
            if t == "##":
                while out and out[-1].isspace():
                    out.pop()
                k += 1
                while k < len(body) and body[k].isspace():
                    k += 1
                if k < len(body):
                    out.append(binding.get(body[k], body[k]))
                    k += 1
                continue
            if t in binding:
                nxt = k + 1
                while nxt < len(body) and body[nxt].isspace():
                    nxt += 1
                pasted = nxt < len(body) and body[nxt] == "##"
                out.append(binding[t] if pasted else self.expand(binding[t], loc, disabled))
            else:
                out.append(t)
            k += 1
        return self.expand("".join(out), loc, disabled | {macro.name})

    # -- #if ---------------------------------------------------------------------------
    def _eval_if(self, loc: Loc, expr: str) -> bool:
        def repl_defined(m: re.Match) -> str:
            return "1" if (m.group(1) or m.group(2)) in self.macros else "0"

        expr = re.sub(r"defined\s*(?:\(\s*(\w+)\s*\)|(\w+))", repl_defined, expr)
        expr = self.expand(expr, loc)
        expr = re.sub(r"defined\s*(?:\(\s*(\w+)\s*\)|(\w+))", repl_defined, expr)
        return _CondEval(expr, loc).value() != 0


class _CondEval:
    """Integer constant expressions of #if (C precedence)."""

    _tok = re.compile(r"\s*(0[xX][0-9a-fA-F]+|\d+|[A-Za-z_]\w*|&&|\|\||<<|>>|[<>=!]=|.)")
    _levels = [
        ["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", ">", "<=", ">="],
        ["<<", ">>"], ["+", "-"], ["*", "/", "%"],
    ]

    def __init__(self, text: str, loc: Loc):
        self.loc = loc
        self.toks = [t for t in self._tok.findall(text) if t.strip()]
        self.i = 0

    def value(self) -> int:
        v = self._ternary()
        if self.i != len(self.toks):
            raise P4CompileError(self.loc, f"bad #if expression near {self.toks[self.i]!r}")
        return v

    def _peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _ternary(self) -> int:
        c = self._binary(0)
        if self._peek() == "?":
            self.i += 1
            a = self._ternary()
            if self._peek() != ":":
                raise P4CompileError(self.loc, "bad #if expression: missing ':'")
            self.i += 1
            b = self._ternary()
            return a if c else b
        return c

    def _binary(self, level: int) -> int:
        if level == len(self._levels):
            return self._unary()
        v = self._binary(level + 1)
        while self._peek() in self._levels[level]:
            op = self.toks[self.i]
            self.i += 1
            r = self._binary(level + 1)
            v = _apply_c_op(op, v, r, self.loc)
        return v

    def _unary(self) -> int:
        t = self._peek()
        if t is None:
            raise P4CompileError(self.loc, "bad #if expression: unexpected end")
        self.i += 1
        if t == "(":
            v = self._ternary()
            if self._peek() != ")":
                raise P4CompileError(self.loc, "bad #if expression: missing ')'")
            self.i += 1
            return v
        if t == "!":
            return int(not self._unary())
        if t == "-":
            return -self._unary()
        if t == "+":
            return self._unary()
        if t == "~":
            return ~self._unary()
        if t[0].isdigit():
            return int(t.rstrip("uUlL"), 0) if not re.match(r"0\d", t) else int(t, 8)
        if _IDENT.match(t):
            return 0
        raise P4CompileError(self.loc, f"bad #if expression near {t!r}")


def _apply_c_op(op: str, a: int, b: int, loc: Loc) -> int:
    if op in ("/", "%") and b == 0:
        raise P4CompileError(loc, "division by zero in #if")
    return {
        "||": lambda: int(bool(a) or bool(b)), "&&": lambda: int(bool(a) and bool(b)),
        "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
        "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
        ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
        "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b, "-": lambda: a - b,
        "*": lambda: a * b, "/": lambda: int(a / b), "%": lambda: a % b,
    }[op]()


def preprocess(path: str, include_dirs=(), defines: dict[str, str] | None = None) -> list[SourceLine]:
    return Preprocessor(include_dirs, defines).run_file(path)
