"""Parser states and the deparser -> C (mixin of `p4emu.native.cgen.CGen`).

The parser is one function whose states are labels: `extract` reads the header's fields
from the packet bytes MSB-first; running out of bytes sets PacketTooShort and stops (the
headers extracted so far stay valid, the payload starts where the cursor stopped), as
`ParserError` does in the Python pipeline. The deparser packs each valid header into the
output buffer.
"""

from __future__ import annotations

from p4emu.ir import blocks as B
from p4emu.ir import expressions as I
from p4emu.ir import parser_states as PS
from p4emu.lang.types import BitsT, StackT, StructT, VarbitT
from p4emu.native.cexpr import scalar, unsigned
from p4emu.native.errors import refuse

PACKET_TOO_SHORT, PARSER_TIMEOUT = 1, 5


def header_bits(t: StructT, loc: object = None) -> int:
    for _, ft in t.fields:
        if isinstance(ft, VarbitT):
            raise refuse(f"the varbit field of {t.name}", loc)
    bits = t.bit_width()
    if bits % 8:
        raise refuse(f"header {t.name} of {bits} bits (not whole bytes)", loc)
    return bits


class ParserC:
    """`self` is the `CGen`."""

    def gen_parser(self, block: B.CheckedBlock) -> list[str]:
        init = self._locals(block)
        self.lines, self.ind = list(init), 1
        self.block_kind = "parser"
        self.line("int n_states = 0;")
        self.line("(void)n_states;")
        self.line("goto S_start;")
        for s in block.states:
            self.ind = 0
            self.line(f"S_{s.name}:")
            self.ind = 1
            self.line(f"if (++n_states > 100000) {{ *err = {PARSER_TIMEOUT}; return 0; }}")
            self.line("{")
            self.ind += 1
            for st in s.stmts:
                self.stmt(st)
            self._transition(s.transition)
            self.ind -= 1
            self.line("}")
        return ["static int prog_parse(st_t *st, pkt_t *P, int *err) {", *self.lines, "}"]

    def _transition(self, tr) -> None:
        if not isinstance(tr, PS.Select):
            self.line("return 0;" if tr is None else f"goto S_{tr};")
            return
        keys = []
        for k in tr.keys:
            c = self.fresh("k")
            self.in_select_key = True  # a lookahead here reads past the end as zeros
            try:
                value = unsigned(self.expr(k), k.type)
            finally:
                self.in_select_key = False
            self.line(f"uint64_t {c} = {value};")
            keys.append(c)
        for case in tr.cases:
            conds = []
            for key, ks in zip(keys, case.keysets, strict=False):
                if isinstance(ks, PS.AnyKey):
                    continue
                if isinstance(ks, PS.Exact):
                    conds.append(f"{key} == {unsigned(self.expr(ks.value), ks.value.type)}")
                elif isinstance(ks, PS.Masked):
                    v = unsigned(self.expr(ks.value), ks.value.type)
                    m = unsigned(self.expr(ks.mask), ks.mask.type)
                    conds.append(f"({key} & {m}) == ({v} & {m})")
                else:
                    raise refuse(f"a select keyset {type(ks).__name__}", ks.loc)
            if len(case.keysets) != len(keys) and not (
                    len(case.keysets) == 1 and isinstance(case.keysets[0], PS.AnyKey)):
                raise refuse("a select case matching all keys at once", case.loc)
            target = "return 0;" if case.state is None else f"goto S_{case.state};"
            if not conds:
                self.line(target)
                return
            self.line(f"if ({' && '.join(conds)}) {target}")
        self.line("return 0;")

    def packet_method(self, name: str, e: I.Call) -> None:
        if name == "extract" and self.block_kind == "parser" and len(e.args) == 1:
            h = e.args[0].value
            t = h.type
            if not isinstance(t, StructT) or t.kind != "header":
                raise refuse(f"extract into {t}", e.loc)
            nbytes = header_bits(t, e.loc) // 8
            self.line("{")
            self.ind += 1
            c = self.fresh("h")
            self.line(f"{self.ctype_of(t)} *{c} = &{self.expr(h)};")  # (`s.next` moves once)
            c = f"(*{c})"
            self.line(f"if (P->pos + {nbytes} > P->dlen) {{ *err = {PACKET_TOO_SHORT}; return 0; }}")
            self.line("const uint8_t *b_ = P->data + P->pos;")
            off = 0
            for fname, ft in t.fields:
                st = scalar(ft, e.loc)
                w = st.width if isinstance(st, BitsT) else 1
                v = f"p4_getbits(b_, {off}, {w})"
                if isinstance(st, BitsT) and st.signed:
                    v = f"p4_sx({v}, {w})"
                self.line(f"{c}.f_{fname} = {v};")
                off += w
            self.line(f"{c}.valid = 1; P->pos += {nbytes};")
            self.ind -= 1
            self.line("}")
            return
        if name == "advance" and self.block_kind == "parser":
            n = self.expr(e.args[0].value)
            self.line(f"{{ uint64_t n_ = {n}; if (n_ % 8) {{ *err = 6; return 0; }} "
                      f"if (P->pos + (Py_ssize_t)(n_ / 8) > P->dlen) {{ *err = {PACKET_TOO_SHORT}; return 0; }} "
                      "P->pos += (Py_ssize_t)(n_ / 8); }")
            return
        if name == "lookahead" and self.block_kind == "parser" and isinstance(e.type, BitsT):
            return  # as a statement: nothing peeked, nothing checked (as the Python emitter)
        if name == "emit" and self.block_kind == "deparser" and len(e.args) == 1:
            self._emit_value(self.expr(e.args[0].value), e.args[0].value.type, e.loc)
            return
        raise refuse(f"packet.{name}() with {len(e.args)} arguments in a {self.block_kind}", e.loc)

    def _emit_value(self, c: str, t, loc) -> None:
        if isinstance(t, StackT):
            for i in range(t.size):
                self._emit_value(f"{c}.items[{i}]", t.elem, loc)
            return
        if not isinstance(t, StructT) or t.kind not in ("header", "struct"):
            raise refuse(f"emit of {t}", loc)
        if t.kind == "struct":
            for fname, ft in t.fields:
                self._emit_value(f"{c}.f_{fname}", ft, loc)
            return
        nbytes = header_bits(t, loc) // 8
        self.deparse_max += nbytes
        self.line(f"if ({c}.valid) {{")
        self.ind += 1
        # every field's bit offset is known here: each becomes a few byte stores
        self.line(f"uint8_t *d_ = out + *o; memset(d_, 0, {nbytes});")
        off = 0
        for fname, ft in t.fields:
            st = scalar(ft, loc)
            w = st.width if isinstance(st, BitsT) else 1
            v = unsigned(f"{c}.f_{fname}", st) if isinstance(st, BitsT) else f"(uint64_t){c}.f_{fname}"
            if w > 0:
                self.line(f"p4_putbits(d_, {off}, {w}, {v});")
            off += w
        self.line(f"*o += {nbytes};")
        self.ind -= 1
        self.line("}")

    def gen_deparser(self, block: B.CheckedBlock) -> list[str]:
        self.lines, self.ind = [], 1
        self.block_kind = "deparser"
        self.deparse_max = 0
        for s in block.body.stmts:
            self.stmt(s)
        self.line("return 0;")
        return ["static int prog_deparse_(st_t *st, pkt_t *P, uint8_t *out, size_t *o) {",
                *self.lines, "}"]

