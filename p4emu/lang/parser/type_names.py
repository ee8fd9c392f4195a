"""The type names a program declares at top level, found before parsing.

Like p4c's lexer, the parser tells type names from other identifiers with a symbol table:
this pre-scan collects every globally declared type name, and the parser adds generic
type parameters while their declaration is parsed (`TokenParser.scoped_types`).
"""

from __future__ import annotations

from p4emu.lang.lexer import Token

BUILTIN_TYPES = {"packet_in", "packet_out"}


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
